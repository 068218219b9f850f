# ruff: noqa: E501 (a corpus: one phrasing per line reads best)
"""A generated corpus of secrets as people write them, and of ordinary messages that hold none.

``secret_messages()`` composes kind x phrasing template x separator x language x surrounding
message text x value shape (random, word-like, multi-word, digits with dots, spaces or
dashes, lower or upper case). ``ordinary_messages()`` composes messages that mention
passwords, codes and numbers without stating a secret. Used by tests/test_redaction_corpus.py
(hypothesis) and bench/redaction.py (counts and false-positive rate).
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

LANGS = ("en", "de", "fr", "es", "it", "pt", "zh")

# Templates: {v} is the secret, {s} a separator from SEPARATORS[lang]; kind -> lang -> templates.
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "password": {
        "en": ("my password{s}{v}", "Remember, the passcode{s}{v}", "the password for the router{s}{v}", "{v} is my password",
               "Use {v} as the password for the router", "pw{s}{v}", "pass: {v}",
               "login: ada, password: {v}", "the wifi password{s}{v}", "new password{s}{v}",
               "password {v}", "I set my password to {v}", "my email password's {v}",
               "Password for the NAS{s}{v}", "btw my pw is now {v}"),
        "de": ("mein Passwort{s}{v}", "Das Passwort für den Router{s}{v}", "mein pw ist {v}",
               "{v} ist mein Passwort", "Kennwort{s}{v}", "nimm {v} als Passwort",
               "Das WLAN-Passwort{s}{v}", "Ich habe das Passwort auf {v} geändert"),
        "fr": ("mon mot de passe{s}{v}", "mon mdp c'est {v}", "le mot de passe du wifi{s}{v}",
               "{v} est mon mot de passe", "utilise {v} comme mot de passe", "mdp: {v}"),
        "es": ("mi contraseña{s}{v}", "la contraseña del wifi{s}{v}", "{v} es mi contraseña",
               "usa {v} como contraseña", "la clave{s}{v}"),
        "it": ("la mia password{s}{v}", "la password del wifi{s}{v}", "{v} è la mia password",
               "usa {v} come password", "la password della banca è {v}"),
        "pt": ("a minha senha{s}{v}", "a senha do wifi{s}{v}", "{v} é a minha senha",
               "usa {v} como senha", "a palavra-passe{s}{v}"),
        "zh": ("我的密码{s}{v}", "wifi密码{s}{v}", "WiFi密码{v}", "{v}是我的密码",
               "用{v}作为密码", "密码改成了{v}", "银行卡密码{s}{v}", "口令{s}{v}"),
    },
    "command": {
        "en": ("mysql -u root -p{v} shop", "run `mysql -h db -u app -p{v}`",
               "export AWS_SECRET_ACCESS_KEY={v}", "AWS_SECRET_ACCESS_KEY={v}",
               "DB_PASSWORD=\"{v}\"", "\"api_key\": \"{v}\"", "app --password={v} --port 80",
               "sshpass -p {v} ssh pi@box", "curl -u admin:{v} http://h/api"),
    },
    "url": {
        "en": ("redis://:{v}@cache:6379/0", "postgres://app:{v}@db.internal/shop",
               "see https://ada:{v}@git.example.org/repo"),
    },
    "pin": {
        "en": ("my PIN{s}{v}", "the PIN for my card{s}{v}", "PIN code{s}{v}", "pin {v}"),
        "de": ("meine PIN{s}{v}", "Die Geheimzahl{s}{v}", "PIN-Code{s}{v}"),
        "fr": ("mon code PIN{s}{v}", "le code PIN de la carte{s}{v}"),
        "es": ("mi PIN{s}{v}", "el código PIN{s}{v}"),
        "it": ("il mio PIN{s}{v}", "il codice PIN{s}{v}"),
        "pt": ("o meu PIN{s}{v}", "o código PIN{s}{v}"),
        "zh": ("银行卡PIN码{s}{v}", "取款密码{s}{v}"),
    },
    "access code": {
        "en": ("the door code{s}{v}", "the garage code{s}{v}", "alarm code{s}{v}",
               "my storage locker code{s}{v}", "the safe combination{s}{v}",
               "the code for the gate{s}{v}", "keypad code {v}"),
        "de": ("Der Türcode{s}{v}", "Garagencode{s}{v}", "der Code für die Alarmanlage{s}{v}",
               "Tresorcode{s}{v}"),
        "fr": ("le code de la porte{s}{v}", "le digicode{s}{v}", "le code du garage{s}{v}",
               "le code du coffre{s}{v}"),
        "es": ("el código de la puerta{s}{v}", "el código del garaje{s}{v}",
               "el código de la alarma{s}{v}"),
        "it": ("il codice della porta{s}{v}", "il codice del cancello{s}{v}",
               "il codice dell'allarme{s}{v}"),
        "pt": ("o código da porta{s}{v}", "o código do alarme{s}{v}",
               "o código do cofre{s}{v}"),
        "zh": ("门禁密码{v}", "门禁码{s}{v}", "车库密码{s}{v}", "保险箱密码{s}{v}"),
    },
    "cvv": {
        "en": ("the CVV{s}{v}", "the three digits on the back are {v}", "cvc {v}"),
        "de": ("die Prüfnummer{s}{v}", "die drei Ziffern auf der Rückseite sind {v}"),
        "fr": ("le cryptogramme{s}{v}", "les trois chiffres au dos sont {v}"),
        "es": ("el CVV{s}{v}", "los tres dígitos de atrás son {v}"),
        "it": ("il CVV{s}{v}", "le tre cifre sul retro sono {v}"),
        "pt": ("o CVV{s}{v}", "os três dígitos do verso são {v}"),
        "zh": ("卡背面的三位数字{s}{v}", "安全码{s}{v}"),
    },
    "national id": {
        "en": ("my SSN{s}{v}", "my social is {v}", "social security number{s}{v}"),
        "de": ("meine Sozialversicherungsnummer{s}{v}", "Steuer-ID{s}{v}"),
        "fr": ("mon numéro de sécurité sociale{s}{v}",),
        "es": ("mi DNI{s}{v}", "el número de seguro social{s}{v}"),
        "it": ("il mio codice fiscale{s}{v}",),
        "pt": ("o meu CPF{s}{v}", "o meu NIF{s}{v}"),
        "zh": ("我的身份证号{s}{v}", "身份证{v}"),
    },
    "recovery phrase": {
        "en": ("my recovery phrase{s}{v}", "the seed phrase{s}{v}"),
        "de": ("die Wiederherstellungsphrase{s}{v}",),
        "fr": ("ma phrase de récupération{s}{v}",),
        "es": ("mi frase de recuperación{s}{v}",),
        "it": ("la mia frase di recupero{s}{v}",),
        "pt": ("a minha frase de recuperação{s}{v}",),
        "zh": ("助记词{s}{v}",),
    },
    "backup code": {
        "en": ("my 2FA backup codes{s}{v}", "recovery codes{s}{v}"),
        "de": ("meine Backup-Codes{s}{v}",),
        "fr": ("mes codes de secours{s}{v}",),
        "es": ("mis códigos de respaldo{s}{v}",),
        "it": ("i miei codici di backup{s}{v}",),
        "pt": ("os meus códigos de backup{s}{v}",),
        "zh": ("备用码{s}{v}",),
    },
    "card": dict.fromkeys(("en",), ("card {v}", "{v}", "Karte {v}", "carte {v}", "tarjeta {v}", "卡号{v}")),
    "iban": dict.fromkeys(("en",), ("IBAN {v}", "{v}", "my iban: {v}")),
}  # fmt: skip

SEPARATORS: dict[str, tuple[str, ...]] = {
    "en": (" is ", ": ", " = ", ":", " - ", " is still ", " was "),
    "de": (" ist ", ": ", " lautet ", " = ", " ist jetzt "),
    "fr": (" est ", " : ", ": ", " c'est ", " = "),
    "es": (" es ", ": ", " = ", " es ahora "),
    "it": (" è ", ": ", " = ", " è ora "),
    "pt": (" é ", ": ", " = ", " é agora "),
    "zh": ("是", "：", ":", "为", "是 "),
}

CONTEXT: dict[str, tuple[str, ...]] = {
    "en": (
        "Thanks for the help earlier.",
        "Quick note before I forget:",
        "Ok so",
        "",
        "I'm heading out soon, remember this for later.",
        "fyi",
    ),
    "de": ("Danke für vorhin.", "Kurz bevor ich es vergesse:", "Also", ""),
    "fr": ("Merci pour tout à l'heure.", "Petite note avant que j'oublie :", "Bon,", ""),
    "es": ("Gracias por lo de antes.", "Una nota rápida:", "Vale,", ""),
    "it": ("Grazie per prima.", "Una nota veloce:", "Allora,", ""),
    "pt": ("Obrigado pela ajuda.", "Uma nota rápida:", "Então,", ""),
    "zh": ("谢谢你刚才的帮助。", "顺便说一下，", "记一下：", ""),
}
AFTER: dict[str, tuple[str, ...]] = {
    "en": ("", ". Don't share it.", ", thanks!", " and call me tomorrow.", ".\nSee you."),
    "de": ("", ". Nicht weitergeben.", ", danke!"),
    "fr": ("", ". Ne le partage pas.", ", merci !"),
    "es": ("", ". No lo compartas.", ", ¡gracias!"),
    "it": ("", ". Non condividerla.", ", grazie!"),
    "pt": ("", ". Não partilhes.", ", obrigado!"),
    "zh": ("", "，别告诉别人。", "。谢谢！"),
}

_C, _V = "bcdfgkmnprstvz", "aeiou"
nonce = st.builds(
    lambda a, b, c, d, e: a + b + c + d + e + "x",
    st.sampled_from(_C), st.sampled_from(_V), st.sampled_from(_C), st.sampled_from(_V),
    st.sampled_from(_C),
)  # fmt: skip
"""Word-like values that never occur in the surrounding text (they end in x)."""
random_secret = st.from_regex(r"[A-Za-z]{3,8}[0-9]{2,4}[!#$%&*]?[a-z]{0,3}", fullmatch=True)


def _luhn(body: str) -> str:
    total = 0
    for index, char in enumerate(reversed(body)):
        value = int(char) * (2 if index % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return body + str((10 - total % 10) % 10)


def _iban(bank: str) -> str:
    moved = bank + "131400"  # "DE" -> 13 14, then "00"
    check = 98 - int(moved) % 97
    return f"DE{check:02d}{bank}"


digits = st.integers(1000, 999999).map(str)
cards = st.tuples(st.from_regex(r"4[0-9]{14}", fullmatch=True), st.sampled_from(" .-")).map(
    lambda pair: (
        pair[1].join(_luhn(pair[0])[i : i + 4] for i in range(0, 16, 4))
        if pair[1] != "." or True
        else _luhn(pair[0])
    )
)
ibans = st.tuples(st.from_regex(r"[0-9]{18}", fullmatch=True), st.booleans(), st.booleans()).map(
    lambda t: (
        (" ".join(_iban(t[0])[i : i + 4] for i in range(0, 22, 4)) if t[1] else _iban(t[0])).lower()
        if t[2]
        else (" ".join(_iban(t[0])[i : i + 4] for i in range(0, 22, 4)) if t[1] else _iban(t[0]))
    )
)
ssns = st.tuples(st.integers(100, 665), st.integers(10, 99), st.integers(1000, 9999)).flatmap(
    lambda t: st.sampled_from((f"{t[0]}-{t[1]}-{t[2]}", f"{t[0]}{t[1]}{t[2]}", f"{t[0]} {t[1]} {t[2]}"))
)  # fmt: skip
VALUES = {
    "password": st.one_of(random_secret, nonce, st.lists(nonce, min_size=3, max_size=4).map(" ".join)),
    "command": st.from_regex(r"[A-Za-z0-9/+]{12,40}", fullmatch=True).filter(lambda v: any(c.isdigit() for c in v)),
    "url": random_secret,
    "pin": digits,
    "access code": digits,
    "cvv": st.integers(100, 999).map(str),
    "national id": ssns,
    "recovery phrase": st.lists(nonce, min_size=12, max_size=12).map(" ".join),
    "backup code": st.lists(st.from_regex(r"[0-9]{4}-[0-9]{4}", fullmatch=True), min_size=3, max_size=5).map(", ".join),
    "card": cards,
    "iban": ibans,
}  # fmt: skip


@dataclass(frozen=True)
class SecretMessage:
    """One generated message and the secret it states."""

    text: str
    secret: str
    kind: str
    lang: str
    template: str

    def pieces(self) -> list[str]:
        """The parts of the secret that must not survive (every word of a phrase)."""
        if self.kind in {"card", "iban", "national id", "backup code"}:
            return [self.secret]
        return [self.secret, *(word for word in self.secret.split() if len(word) >= 4)]


def phrasings() -> list[tuple[str, str, str]]:
    """Every (kind, lang, template) with its separators expanded."""
    out: list[tuple[str, str, str]] = []
    for kind, by_lang in TEMPLATES.items():
        for lang, templates in by_lang.items():
            for template in templates:
                seps = SEPARATORS[lang] if "{s}" in template else ("",)
                out.extend((kind, lang, template.replace("{s}", sep)) for sep in seps)
    return out


PHRASINGS = phrasings()
BARE = frozenset(("password {v}",))


@st.composite
def secret_messages(draw: st.DrawFn) -> SecretMessage:
    """A realistic message stating one secret."""
    kind, lang, template = draw(st.sampled_from(PHRASINGS))
    # Without a separator a value must look random ("password manager" is not a secret).
    value = draw(random_secret if template in BARE else VALUES[kind])
    before = draw(st.sampled_from(CONTEXT[lang]))
    after = draw(st.sampled_from(AFTER[lang]))
    joiner = "" if lang == "zh" or not before else " "
    text = f"{before}{joiner}{template.format(v=value)}{after}"
    return SecretMessage(text=text, secret=value, kind=kind, lang=lang, template=template)


ORDINARY: dict[str, tuple[str, ...]] = {
    "en": ("I reset my password yesterday", "the password is wrong again", "I use a password manager", "where is the code for the parser?", "the error code is 404",
           "we shipped version {n}.2.1 today", "meeting at 10:30 on 2024-05-{d}",
           "it costs {n}.50 euros", "the pin on the map is wrong", "my key insight is that tests matter", "the token limit is {n}", "I passed the exam with {n} points",
           "please change the password policy", "the code is clean now", "room {n} on floor 3",
           "I prefer short answers and metric units", "Kyoto in April, {n} people",
           "commit 0123456789abcdef0123456789abcdef01234567 fixed it",
           "my social life is busy", "the backup is done", "the door is open",
           "the safe option is to wait", "I can't remember my password", "this is my password manager",
           "the API key is read from REVERIE_API_KEY", "I changed the code to use asyncio",
           "api_key: str = Field(...)", "password = input()", "set PIN to be required on login",
           "DB_PASSWORD=$DB_PASS in the compose file", "use pytest as the test runner"),
    "de": ("Ich habe mein Passwort vergessen", "Das Passwort ist falsch", "Der Code ist sauber",
           "Treffen um 10:30 am {d}. Mai", "Es kostet {n} Euro", "Ich trinke gern Kaffee"),
    "fr": ("J'ai oublié mon mot de passe", "le mot de passe est trop court",
           "réunion à 10h30 le {d} mai", "ça coûte {n} euros", "le code est propre"),
    "es": ("Olvidé mi contraseña", "la contraseña es incorrecta", "la reunión es el {d} de mayo",
           "cuesta {n} euros", "el código está limpio"),
    "it": ("Ho dimenticato la password", "la password è sbagliata", "costa {n} euro",
           "il codice è pulito", "riunione il {d} maggio"),
    "pt": ("Esqueci a minha senha", "a senha está errada", "custa {n} euros",
           "o código está limpo", "reunião no dia {d} de maio"),
    "zh": ("我忘了密码", "密码错误", "我喜欢简短的回答。", "会议在{d}号", "这个要{n}元"),
}  # fmt: skip


@st.composite
def ordinary_messages(draw: st.DrawFn) -> str:
    """A realistic message that mentions secrets or numbers but states none."""
    lang = draw(st.sampled_from(LANGS))
    template = draw(st.sampled_from(ORDINARY[lang]))
    before = draw(st.sampled_from(CONTEXT[lang]))
    after = draw(st.sampled_from(("", ".", "!", " :)")))
    filled = template.format(n=draw(st.integers(2, 999)), d=draw(st.integers(1, 28)))
    return f"{before} {filled}{after}".strip()
