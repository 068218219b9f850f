"""The words secrets are stated with, per kind, in the languages reverie claims.

Claimed languages: English, German, French, Spanish, Italian, Portuguese and Chinese
(``LANGUAGES``). Each kind maps to one alternation of keyword phrases (lower case; the rules
compile them case-insensitively) and to the cheap substrings (``TRIGGERS``) one of which any
statement of that kind contains. ``COPULAS`` are the words that join a keyword to its value
("is", "ist", "est", "es", "è", "é", "是"); ``NOT_A_SECRET`` are first words after which a value
is not a secret ("the password is *wrong*", "das Passwort ist *falsch*"). Data only, no I/O.
"""

from __future__ import annotations

import re


def _words(text: str) -> list[str]:
    return text.split()


LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "zh")
"""The languages whose phrasings the prose rules and the generated tests cover."""

_NOT_A_CODE = (
    r"(?<!error )(?<!zip )(?<!postal )(?<!post )(?<!area )(?<!country )(?<!status )"
    r"(?<!source )(?<!exit )(?<!return )(?<!promo )(?<!discount )(?<!coupon )(?<!qr )"
    r"(?<!bar )(?<!dress )(?<!color )(?<!colour )(?<!http )(?<!language )"
)

KEYWORDS: dict[str, str] = {
    "recovery phrase": (
        r"(?:secret )?(?:recovery|seed|backup|mnemonic|wallet) (?:phrase|words)|"
        r"\bmnemonic\b|seed-?phrase|wiederherstellungs(?:phrase|wörter)|"
        r"phrase (?:de récupération|mnémonique)|mots de récupération|"
        r"frase (?:de recuperación|semilla|di recupero|de recuperação)|frase-semente|"
        r"palabras de recuperación|parole di recupero|palavras de recuperação|"
        r"助记词|恢复短语|恢复词|种子短语"
    ),
    "backup code": (
        r"(?:2fa |two-factor |mfa |one-time )?(?:backup|recovery) codes?|2fa codes|"
        r"backup-codes?|wiederherstellungscodes|sicherungscodes|"
        r"codes? de (?:secours|récupération|sauvegarde)|"
        r"códigos? de (?:respaldo|recuperación|backup|recuperação|reserva)|"
        r"codici di (?:backup|recupero|riserva)|备用码|恢复码|备份码"
    ),
    "passphrase": (
        r"pass ?phrases?|wi-?fi (?:key|code)|wlan-?(?:schlüssel|kennwort)|"
        r"phrase (?:secrète|de passe)|frase (?:secreta|de (?:contraseña|paso))|passphrase"
    ),
    "cvv": (
        r"\b(?:cvv2?|cvc2?|csc)\b|(?:three|3) digits on the back|"
        r"(?:security code|digits) on the back|kartenprüfnummer|prüfnummer|"
        r"(?:drei|3) ziffern (?:auf|hinten)|cryptogramme|(?:trois|3) chiffres (?:au dos|derrière)|"
        r"(?:tres|3) dígitos (?:de atrás|del reverso|de detrás|de la parte trasera)|"
        r"(?:tre|3) cifre (?:sul retro|dietro)|(?:três|3) dígitos (?:do verso|de trás)|"
        r"背面(?:的)?(?:三位|3位)数(?:字)?|安全码|cvv码"
    ),
    "pin": (
        r"\bpin(?:[ -]?(?:code|number|nummer|nr\.?|no\.?))?\b|geheimzahl|\bcode pin\b|"
        r"\bcódigo pin\b|\bcodice pin\b|\bnúmero pin\b|pin码|取款密码"
    ),
    "password": (
        r"passwor[dt](?:s|e|er)?|passwörter|pass ?codes?|passwd|\bpwd\b|\bpw\b|\bpass word|"
        r"\bpass(?= ?[:=])|kennw[oö]rt(?:er)?|mots? de passe|\bmdp\b|contraseñas?|"
        r"\bclaves?\b|\bsenhas?\b|palavras?-passe|parola d'ordine|密码|口令"
    ),
    "access code": (
        r"(?:door|garage|gate|alarm|locker|safe|lock|keypad|building|entry|lockbox|"
        r"padlock|front door|storage locker|key ?safe) ?(?:code|combination|combo|pin)s?|"
        r"combination (?:to|for|of) (?:the|my|our) \w+|"
        rf"{_NOT_A_CODE}\b(?:access|security|unlock|entry) codes?\b|"
        r"(?:tür|garagen|tor|alarm(?:anlagen)?|schließfach|spind|tresor|safe|schloss|haustür|"
        r"zahlenschloss|zugangs|sicherheits|entsperr)-?code|"
        r"\bdigicode\b|\bcombinaison\b|\bcombinación\b|\bcombinazione\b|\bcombinação\b|"
        r"门禁(?:密码|码)?|(?:车库|保险箱|保险柜|储物柜|报警|开锁|解锁)(?:门)?(?:密码|码)|验证码|"
        rf"{_NOT_A_CODE}\bcode\b|\bcódigo\b|\bcodice\b"
    ),
    "national id": (
        r"\bssn\b|social security (?:number|no\.?|#)?|\bmy social\b|"
        r"national (?:id|identity|insurance) (?:number|no\.?)?|passport (?:number|no\.?)|"
        r"sozialversicherungsnummer|(?:personal)?ausweisnummer|steuer-?id|"
        r"steueridentifikationsnummer|reisepassnummer|numéro de (?:sécurité sociale|passeport)|"
        r"\bnir\b|numéro fiscal|número de (?:seguro social|pasaporte|contribuinte|segurança "
        r"social)|\bnss\b|\bdni\b|\bnif\b|\bcpf\b|codice fiscale|"
        r"numero di passaporto|número do passaporte|cartão de cidadão|"
        r"身份证(?:号码?)?|护照(?:号码?)?|社保(?:号码?)?"
    ),
    "api key": (
        r"api[ _-]?keys?|secret[ _-]?keys?|client[ _-]?secrets?|private[ _-]?keys?|"
        r"access[ _-]?keys?|api-schlüssel|clé (?:d'api|api|secrète)|clave (?:de api|secreta|"
        r"api)|chiave (?:api|segreta)|chave (?:de api|api|secreta)|密钥|私钥"
    ),
    "token": r"(?:access|auth|bearer|refresh|session)[ _-]?tokens?|\btokens?\b|令牌",
}
"""Keyword alternation of each kind: more specific kinds first (a PIN code before a code)."""

TRIGGERS: dict[str, tuple[str, ...]] = {
    "recovery phrase": (
        "phrase", "recovery", "seed", "backup", "wallet", "mnemonic", "wiederherstellung",
        "frase", "récupération", "recuperación", "recupero", "recuperação", "助记词", "短语",
        "恢复词",
    ),
    "backup code": ("code", "códig", "codic", "备用码", "恢复码", "备份码"),
    "passphrase": ("phrase", "wifi", "wi-fi", "wlan", "frase"),
    "cvv": (
        "cvv", "cvc", "csc", "digits", "security code", "prüfnummer", "ziffern", "cryptogramme",
        "chiffres", "dígitos", "cifre", "背面", "安全码",
    ),
    "pin": ("pin", "geheimzahl", "取款密码"),
    "password": (
        "pass", "pwd", "pw", "kennw", "mdp", "contrase", "clave", "senha", "parola",
        "密码", "口令",
    ),
    "access code": (
        "code", "combination", "combo", "combin", "códig", "codic", "门禁", "码",
    ),
    "national id": (
        "ssn", "social", "national", "passport", "sozialversicherung", "ausweis",
        "steuer", "reisepass", "numéro", "nir", "número", "nss", "dni", "nif", "cpf",
        "fiscale", "passaporto", "passaporte", "cidadão", "身份证", "护照", "社保",
    ),
    "api key": ("key", "secret", "schlüssel", "clé", "clave", "chiave", "chave", "密钥", "私钥"),
    "token": ("token", "令牌"),
}  # fmt: skip

COPULAS = (
    r"is|was|are|were|is now|is still|'s|ist|lautet|lauten|war|sind|heißt|est|c'est|était|"
    r"sont|es|era|son|è|e'|sono|é|são|是|为|為|是这个"
)
"""Words joining a keyword to its value, every claimed language."""

POSSESSIVES = (
    r"my|the|our|your|his|her|their|a|mein|meine|unser|unsere|das|der|die|le|la|les|mon|ma|"
    r"mes|notre|mi|mis|el|nuestra|nuestro|il mio|la mia|il|lo|la nostra|il nostro|a minha|o "
    r"meu|minha|meu|a|o|nossa|nosso"
)
"""Words between a value stated first and its keyword ("hunter2 is *my* password")."""

NOT_A_SECRET = frozenset(
    _words(
        """
        in on at of for to from the a an my your his her our their this that it its not no
        none too very so still now also just only always never same different new old wrong
        incorrect invalid expired required mandatory needed necessary optional saved stored
        written weak strong secure insecure safe unsafe long short hard easy simple
        complicated complex fine ok okay good bad empty blank missing unknown changed reset
        set different case-sensitive being been what which where why how here there
        something anything nothing somewhere stuck written same locked blocked sent lost
        forgotten different reused shared im auf der die das ein eine einen mein meine nicht
        kein keine falsch zu sehr noch jetzt auch nur immer nie neu alt ungültig abgelaufen
        erforderlich nötig gespeichert schwach stark sicher unsicher lang kurz leer geändert
        gesperrt vergessen irgendwo hier da was dans sur le la les un une mon ma mes pas
        faux fausse trop très encore aussi toujours jamais nouveau nouvelle expiré expirée
        requis requise obligatoire enregistré enregistrée faible fort forte sécurisé long
        longue court courte vide changé changée bloqué oublié en el los las una mi mis no
        incorrecta incorrecto demasiado muy todavía también siempre nunca nueva nuevo
        caducada caducado obligatoria guardada guardado débil segura seguro larga corta
        vacía cambiada bloqueada olvidada aquí nel nella sul sulla il lo gli un uno mia mio
        non sbagliata sbagliato troppo molto ancora anche sempre mai nuova nuovo scaduta
        scaduto obbligatoria salvata salvato debole sicura lunga corta vuota cambiata
        bloccata dimenticata qui em no na os as um uma minha meu não errada errado demasiado
        muito ainda também sempre nunca expirada expirado obrigatória guardada guardado
        fraca forte segura longa curta vazia mudada alterada bloqueada esquecida aqui
        currently actually simply nun einfach maintenant désormais simplement ahora
        simplemente ora adesso semplicemente agora ainda simplesmente
        read loaded taken kept passed used generated provided given defined configured
        available valid active rotated revoked hashed encrypted shown displayed printed hidden
        masked redacted use be make match include allow support handle avoid fix return call
        run get str int bool float none null true false string number undefined bytes dict
        list any
        """
    )
)
"""First words of a "value" that say something about the secret instead of being it."""

_CODE_VALUE = re.compile(r"[\w.]+\(|\$\{?[A-Z][A-Z0-9_]*\}?$|%[A-Z_]+%$|(?:os\.environ|getenv)\b")


def plausible_value(text: str) -> bool:
    """False for a value that names the secret's place, not the secret.

    That is a first word of ``NOT_A_SECRET``, a function call (``input()``), an environment
    reference (``$DB_PASS``), or no letter or digit at all (``REVERIE_API_KEY :)``).
    """
    first = text.strip("\"'“”「」«» ").split(" ", 1)[0]
    return (
        any(char.isalnum() for char in first)
        and first.lower() not in NOT_A_SECRET
        and not _CODE_VALUE.match(first)
    )
