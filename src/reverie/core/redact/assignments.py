"""Secrets given to programs: environment assignments and command-line flags.

``AWS_SECRET_ACCESS_KEY=…``, ``export GITHUB_TOKEN="…"``, ``"api_key": "…"`` (a name with an
underscore that contains secret, token, password, pass, pwd, key or credential), and the
flags that carry a password: ``mysql -u root -pX``, ``--password=X``, ``sshpass -p X``,
``curl -u user:X``. Only the value is replaced. No I/O.
"""

from __future__ import annotations

from reverie.core.redact.formats import Rule, _rule
from reverie.core.redact.lexicon import plausible_value

_VALUE = r"(?P<secret>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|(?!\[redacted)[^\s\"',;]{1,300})"

ASSIGNMENT_RULES: tuple[Rule, ...] = (
    _rule(
        "api key",
        r"(?<![A-Za-z0-9])[\"']?(?=[A-Za-z0-9_]*_)[A-Za-z0-9_]*(?:secret|token|password|passwd|"
        r"pwd|pass|api_?key|access_?key|private_?key|credentials?|auth)[A-Za-z0-9_]*[\"']?"
        rf"\s*[=:]\s*{_VALUE}",
        plausible_value,
        triggers=("secret", "token", "pass", "pwd", "key", "credential", "auth"),
    ),
    _rule(
        "password",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p(?P<secret>[^\s-][^\s]*)",
        triggers=("mysql", "mariadb"),
    ),
    _rule(
        "password",
        rf"(?<![\w-])--(?:password|passwd|pass|db-password|pwd)(?:=|\s+){_VALUE}"
        rf"|\bsshpass\s+-p\s*{_VALUE.replace('secret', 'zh')}",
        triggers=("--pass", "--pwd", "--db-pass", "sshpass"),
    ),
    _rule(
        "password",
        r"\s(?:-u|--user)\s+[^\s:]{1,64}:(?P<secret>[^\s\"']{1,200})",
        triggers=("-u ", "--user"),
    ),
)
"""Rules for assignments and flags (run before the prose rules: ``pass=`` is a flag here)."""
