"""Secrets stated in prose: "my password for the bank is …", "Mein Passwort ist …", "密码是…".

A statement is a keyword (password, passphrase, PIN, passcode, login, CVV, national id, api
key, token, in English, German, French, Spanish and Chinese), a short gap ("for the bank"), a
separator ("is", "ist", "est", "es", "是", ":", "=") and the value. Only the value is replaced,
so "my password for the bank is [redacted: password]" still says a password exists. Without a
separator ("login with password Sunshine2024") the value must look like a secret (a digit or a
symbol in it), so "change the password tomorrow" stays as it is. A passphrase may be several
words: it runs to the end of the clause. No I/O.
"""

from __future__ import annotations

from reverie.core.redact.formats import Rule, _rule

_GAP = r"(?P<gap>(?:[^\n.!?:=：。！？\[\]]|\[redacted: [a-z ]{1,20}\]){0,32}?)"
_SEP = (
    r"(?:\s*(?:\b(?:is|was|are|ist|lautet|war|est|était|es|era|sont|son)\b|[:=：]|是|为|為)\s*"
    r"|\s+(?=\S*[0-9!@#$%^&*_+=~])(?=\S{4}))"
)
_QUOTED = r"\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|“[^”\n]{1,80}”|「[^」\n]{1,80}」|«[^»\n]{1,80}»"
_WORD = r"[^\s,;，。；、]{0,79}[^\s.,;:?)，。；、！？\]\"']"
_VALUE = rf"(?P<secret>(?!\[redacted){_QUOTED}|(?!\[redacted){_WORD})"
_CLAUSE = r"[^\s\[][^\n.,;!?，。；！？]{0,99}[^\s.,;!?，。；！？]"
_PHRASE = rf"(?P<secret>(?!\[redacted){_QUOTED}|(?!\[redacted){_CLAUSE})"

_KEYWORDS: dict[str, str] = {
    "passphrase": (
        r"pass ?phrases?|wi-?fi (?:key|code)|wlan-?(?:schlüssel|kennwort)|phrase (?:secrète|de "
        r"passe)|frase (?:secreta|de (?:contraseña|paso))|助记词"
    ),
    "password": (
        r"passwor[dt]s?|passwd|\bpwd\b|\bpass word|kennw[oö]rt(?:er)?|mots? de passe|"
        r"contraseñas?|\bclaves?\b|密码|口令"
    ),
    "pin": (
        r"\bpin(?:[ -]?(?:code|number|nummer|nr\.?))?\b|geheimzahl|code pin|\bcódigo pin\b|"
        r"pin码"
    ),
    "passcode": (
        r"pass ?codes?|access codes?|security codes?|unlock codes?|zugangscode|sicherheitscode|"
        r"entsperrcode|code (?:d'accès|de sécurité|secret|confidentiel)|código (?:de acceso|"
        r"de seguridad|secreto)|验证码|安全码|解锁码"
    ),
    "cvv": r"\b(?:cvv2?|cvc2?|csc|cid)\b|kartenprüfnummer|prüfnummer|cryptogramme",
    "national id": (
        r"\bssn\b|social security (?:number|no\.?)|national (?:id|identity|insurance) "
        r"(?:number|no\.?)|passport (?:number|no\.?)|sozialversicherungsnummer|"
        r"personalausweisnummer|steuer-?id|steueridentifikationsnummer|numéro de (?:sécurité "
        r"sociale|passeport)|\bnir\b|número de (?:seguro social|pasaporte)|\bdni\b|\bnie\b|"
        r"身份证号码?|护照号码?|社保号码?"
    ),
    "api key": (
        r"api[ _-]?keys?|secret[ _-]?keys?|client[ _-]?secrets?|private[ _-]?keys?|"
        r"api-schlüssel|clé (?:d'api|api|secrète)|clave (?:de api|secreta)|密钥|私钥"
    ),
    "token": r"(?:access|auth|bearer|refresh|session)[ _-]?tokens?|\btokens?\b|令牌",
}

_LOGIN = (
    r"(?P<kw>\b(?:login|log-in|sign-in|credentials|zugangsdaten|anmeldedaten|login-daten|"
    r"identifiants|credenciales|datos de acceso)\b|登录信息|登录|账号)"
    r"(?P<gap>[^\n.!?]{0,24}?)\s*(?:\b(?:is|are|ist|sind|lautet|lauten|est|sont|es|son)\b|"
    r"[:=：]|是|为)\s*(?P<user>\S{1,80}?)\s*(?:/|\||,|，|\band\b|\bund\b|\bet\b|\by\b)\s*"
)


_TRIGGERS: dict[str, tuple[str, ...]] = {
    "passphrase": ("phrase", "wifi", "wi-fi", "wlan", "frase", "助记词"),
    "password": ("pass", "pwd", "kennw", "contrase", "clave", "密码", "口令"),
    "pin": ("pin", "geheimzahl"),
    "passcode": ("code", "código", "验证码", "安全码", "解锁码"),
    "cvv": ("cvv", "cvc", "csc", "cid", "prüfnummer", "cryptogramme"),
    "national id": (
        "ssn",
        "social security",
        "national",
        "passport",
        "sozialversicherung",
        "ausweis",
        "steuer",
        "numéro",
        "nir",
        "número",
        "dni",
        "nie",
        "身份证",
        "护照",
        "社保",
    ),
    "api key": ("key", "secret", "schlüssel", "clé", "clave", "密钥", "私钥"),
    "token": ("token", "令牌"),
    "login": (
        "login",
        "log-in",
        "sign-in",
        "credentials",
        "zugangsdaten",
        "anmeldedaten",
        "identifiants",
        "credenciales",
        "datos de acceso",
        "登录",
        "账号",
    ),
}


def _stated(kind: str, keywords: str, value: str) -> Rule:
    return _rule(kind, rf"(?P<kw>{keywords}){_GAP}{_SEP}{value}", triggers=_TRIGGERS[kind])


PROSE_RULES: tuple[Rule, ...] = (
    _rule("password", _LOGIN + _VALUE, triggers=_TRIGGERS["login"]),
    _rule(
        "password",
        rf"\b(?:set|change|changed|reset|update|updated)\s+(?:my|the|our|his|her)?\s*"
        rf"(?:password|passwort|pin|passcode)\s+to\s+{_VALUE}",
        triggers=("set ", "change", "reset ", "update"),
    ),
    _stated("passphrase", _KEYWORDS["passphrase"], _PHRASE),
    _rule(
        "cvv",
        rf"(?P<kw>{_KEYWORDS['cvv']})[^\d\n.!?]{{0,24}}?(?<!\d)(?P<secret>\d{{3,4}})\b",
        triggers=_TRIGGERS["cvv"],
    ),
    *(
        _stated(kind, _KEYWORDS[kind], _VALUE)
        for kind in ("password", "pin", "passcode", "national id", "api key", "token")
    ),
)
"""Statement rules; the passphrase comes before the password (``wifi password`` is a password)."""
