"""Secrets stated in prose: "my password for the bank is …", "hunter2 is my password", "密码是…".

A statement names a kind with a keyword (``lexicon.KEYWORDS``, seven languages) and gives the
value in one of these shapes, each a rule here:

- keyword, short prepositional gap, separator, value: "the password for the router is X",
  "Mein Passwort lautet X", "mon mdp c'est X", "pw: X", "门禁密码1234" (a Chinese keyword
  needs no separator before an ASCII value);
- value first: "X is my password", "X è la mia password", "X是我的密码";
- use/set: "use X as the password", "nimm X als Passwort", "set my PIN to X", "密码改成X";
- multi-word values: a recovery phrase or a list of backup codes runs to the end of the
  sentence; a password whose first word does not look random runs over up to six words
  ("correct horse battery staple") and stops at a conjunction.

Only the value is replaced. A value whose first word says something about the secret ("the
password is *wrong*", ``lexicon.NOT_A_SECRET``) is not one; PINs, codes, CVVs and national ids
need a digit. Without a separator the value must look random (a digit or a symbol). No I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from reverie.core.redact.formats import Rule, _rule
from reverie.core.redact.lexicon import (
    COPULAS,
    KEYWORDS,
    NOT_A_SECRET,
    POSSESSIVES,
    TRIGGERS,
    plausible_value,
)
from reverie.core.text import CJK

_PREPOSITIONS = (
    r"for|of|on|at|to|in|from|with|für|fürs|zum|zur|vom|von|bei|de|du|des|d'|pour|para|per|"
    r"por|da|do|di|del|della|dell'|dello|dos|das|al|au|no|na|nel|nella"
)
_ADVERBS = (
    r"now|still|currently|actually|just|simply|jetzt|nun|einfach|maintenant|désormais|"
    r"toujours|simplement|ahora|todavía|simplemente|ora|adesso|ancora|semplicemente|agora|"
    r"ainda|simplesmente"
)
_GAP = (
    r"(?P<gap>(?:\s*\((?:[^()\n]{0,30})\))?(?:\s+(?:" + _PREPOSITIONS + r")\b"
    r"(?:[^\n.!?:=：。！？\[\]]|\[redacted: [a-z ]{1,20}\]){0,32}?)?,?)"
)
_CJK_SEP = r"(?:就是|是|为|為|改成了?|改为|设置为|设为|换成了?)"
_SEP = (
    rf"(?:\s*(?:\b(?:{COPULAS})\b|(?<=\w)[\u2019']s\b|[\"']?\s*[:=：]|->|→|=>|\s-)"
    rf"(?:\s+(?:{_ADVERBS})\b)?"
    rf"\s*|\s*{_CJK_SEP}\s*|(?<=[{CJK}])(?=[!-~])"
    r"|\s+(?=\S*(?:[0-9]|[!@#$%^&*_+=~]\w))(?=\S{4}))"
)
_QUOTED = r"\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|“[^”\n]{1,80}”|「[^」\n]{1,80}」|«[^»\n]{1,80}»"
_WORD = r"[^\s,;，。；、]{0,79}[^\s.,;:?!)，。；、！？\]\"']"
_RANDOM_WORD = r"(?=[^\s,;]*(?:[0-9]|[!@#$%^&*_+=~?]\w))" + _WORD
_STOP = (
    r"and|but|so|or|for|because|if|when|then|please|in|on|at|with|to|from|i|you|und|aber|oder|"
    r"für|weil|wenn|bitte|mit|im|ich|et|mais|ou|pour|car|si|quand|donc|avec|dans|je|y|pero|o|"
    r"para|porque|cuando|con|en|yo|e|ma|per|perché|se|quando|con|nel|io|mas|ou|com|eu|lol"
)
_WORDS = rf"{_WORD}(?:[ ](?!(?:{_STOP})\b)(?!\[redacted){_WORD}){{0,5}}"
_VALUE = rf"(?P<secret>(?!\[redacted)(?:{_QUOTED}|{_RANDOM_WORD}(?=[\s,;.!?)]|$)|{_WORDS}))"
_ONE_VALUE = rf"(?P<secret>(?!\[redacted)(?:{_QUOTED}|{_WORD}))"
_FEW_WORDS = rf"(?P<secret>(?!\[redacted)(?:{_QUOTED}|(?:{_WORD}[ ]){{0,3}}{_WORD}[!?*]?))"
"""Up to four words (chatter at their start is dropped: ``Rule.leading``)."""
_KW_SHORT = (
    r"passwor[dt]\w*|passwörter|pass ?codes?|passwd|\bpwd?\b|kennw[oö]rt\w*|mots? de passe|"
    r"\bmdp\b|contraseñas?|\bclaves?\b|\bsenhas?\b|palavras?-passe|\bpin\b|pin-code|"
    r"geheimzahl|\bcode\b|\bcodice\b|\bcódigo\b|combination|combinazione|combinación|"
    r"pass ?phrases?|api[ _-]?keys?|tokens?|密码|口令"
)
"""The keywords a value stated first, or set or used as one, is named with (no look-behinds:
these rules try every word of a text)."""
_ALT_VALUE = _FEW_WORDS.replace("(?P<secret>", "(?P<zh>")
_SENTENCE = r"(?P<secret>(?!\[redacted)[^\s\[][^\n.!?。！？]{1,299}[^\s.!?。！？])"


def _secret(text: str) -> bool:
    return plausible_value(text)


def _with_digit(text: str) -> bool:
    return _secret(text) and any(char.isdigit() for char in text)


def _kw(*kinds: str) -> str:
    return "|".join(KEYWORDS[kind] for kind in kinds)


def _triggers(*kinds: str) -> tuple[str, ...]:
    return tuple(trigger for kind in kinds for trigger in TRIGGERS[kind])


def _stated(kind: str, value: str, check: Callable[[str], bool] = _secret) -> Rule:
    return _rule(
        kind, rf"(?P<kw>{KEYWORDS[kind]}){_GAP}{_SEP}{value}", check, triggers=TRIGGERS[kind]
    )


_SECRET_KINDS = ("password", "pin", "access code", "passphrase", "api key", "token")
_VALUE_FIRST = (
    rf"(?<![\w-]){_FEW_WORDS}\s+(?:is|was|ist|war|est|c'est|es|era|è|é)\s+"
    rf"(?:(?:{POSSESSIVES})\s+)(?:[\w-]+\s+){{0,2}}?(?:{_KW_SHORT})"
)
_VALUE_FIRST_ZH = (
    r"(?<![!-~])(?P<secret>[!-~](?:[!-~ ]{0,62}[!-~])?)\s*(?:就是|是)(?:我的|我们的|你的)?"
    r"[^\s，。]{0,6}?(?:密码|口令|码)"
)
"""A value before 是 (its own rule: only text holding 是 and a keyword pays for it)."""
_USE_AS = (
    r"(?:\b(?:use|try|enter|type|put|nimm|nehmen|nutze|verwende|benutze|gib|utilise|utilisez|"
    r"prends|mets|tape|entre|usa|utiliza|pon|escribe|usare|metti|utilizza|inserisci|coloca|"
    rf"põe|digita)\s+{_FEW_WORDS}\s+(?:as|als|comme|como|come)\s+(?:(?:{POSSESSIVES})\s+)?"
    rf"(?:[\w-]+\s+){{0,2}}?(?:{_KW_SHORT}))"
    rf"|用\s*(?P<zh>[!-~][!-~ ]{{1,62}}?[!-~])\s*(?:作为|当作?|做)"
    r"(?:[^\s，。]{0,6}?)(?:密码|口令)"
)
_SET_TO = (
    r"\b(?:set|change|changed|reset|update|updated|switched|changé|modifié|mis|cambié|"
    r"cambiado|puesto|actualicé|cambiato|impostato|messo|aggiornato|mudei|alterei|troquei|"
    rf"mudado|alterado|definido|defini)\s+(?:(?:{POSSESSIVES})\s+)?(?:[\w-]+\s+){{0,2}}?"
    rf"(?:{_KW_SHORT})\s+(?:to|into|en|pour|à|par|a|por|in|con|para)\s+{_VALUE}"
    rf"|(?:{_KW_SHORT})\s+(?:auf|in|zu)\s+{_ALT_VALUE}\s+(?:geändert|gesetzt|"
    r"umgestellt|gewechselt)"
)
_LOGIN = (
    r"(?P<kw>\b(?:login|log-in|sign-in|credentials|zugangsdaten|anmeldedaten|login-daten|"
    r"identifiants|credenciales|datos de acceso|credenziali|credenciais|dados de acesso)\b|"
    r"登录信息|登录|账号)"
    r"(?P<gap>[^\n.!?]{0,24}?)\s*(?:\b(?:is|are|ist|sind|lautet|lauten|est|sont|es|son|è|"
    r"sono|é|são)\b|[:=：]|是|为)\s*(?P<user>\S{1,80}?)\s*(?:/|\||,|，|\band\b|\bund\b|\bet\b|"
    rf"\by\b|\be\b)\s*(?!(?:{KEYWORDS['password']}))"
)

_ALL_TRIGGERS = _triggers(*_SECRET_KINDS)


def _words(text: str) -> list[str]:
    return text.split()


_CHATTER = NOT_A_SECRET | frozenset(
    _words(
        """
        ok okay so btw fyi lol well hey hi yes yeah and also i think guess remember note que
        also dann alors bon vale allora então 那么
        """
    )
)


def _either(match_source: str, kind: str, triggers: tuple[str, ...]) -> Rule:
    """A rule whose secret is group ``secret`` or (Chinese shape) group ``zh``."""
    rule = _rule(kind, match_source, _secret, triggers=triggers)
    return replace(rule, leading=_CHATTER)


PROSE_RULES: tuple[Rule, ...] = (
    _rule("password", _LOGIN + _ONE_VALUE, triggers=TRIGGERS["password"] + ("login", "sign-in",
          "credentials", "zugangsdaten", "anmeldedaten", "identifiants", "credenciales",
          "datos de acceso", "credenziali", "credenciais", "dados de acesso", "登录", "账号")),
    _rule("password", _SET_TO, _secret, triggers=_ALL_TRIGGERS),
    _either(_USE_AS, "password", _ALL_TRIGGERS),
    _either(_VALUE_FIRST, "password", _ALL_TRIGGERS),
    _either(_VALUE_FIRST_ZH, "password", ("密码", "口令", "码")),
    _stated("recovery phrase", _SENTENCE),
    _stated("backup code", _SENTENCE, _with_digit),
    _stated("passphrase", _SENTENCE),
    _rule(
        "cvv",
        rf"(?P<kw>{KEYWORDS['cvv']})[^\d\n.!?]{{0,30}}?(?<!\d)(?P<secret>\d{{3,4}})(?!\d)",
        triggers=TRIGGERS["cvv"],
    ),
    _stated("pin", _VALUE, _with_digit),
    _stated("password", _VALUE),
    _stated("access code", _VALUE, _with_digit),
    _stated(
        "national id",
        r"(?P<secret>[A-Za-z0-9](?:[A-Za-z0-9]|[ .-](?=\d)){4,30})",
        _with_digit,
    ),
    _stated("api key", _VALUE),
    _stated("token", _VALUE),
)  # fmt: skip
"""Statement rules; the most specific shapes first (a recovery phrase before a password)."""
