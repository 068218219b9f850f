"""Rule screening: which candidate rules for SOUL.md are never written by a curator.

SOUL.md is sent with every future prompt, so a rule there acts on every future turn. A rule
that a web page, a tool result or an over-eager curator slipped in must not get that power.
``screen_rule`` refuses a candidate rule that would:

- exfiltrate: it names a place to send data to (a URL, an e-mail address, an IP address or a
  domain name, or a verb of sending with "to" + a server, webhook or endpoint);
- run commands: a shell command, a pipe into a shell, ``curl``/``wget``/``sudo``/``rm -rf``,
  "run/execute the command", code in backticks;
- disable safety or override instructions: "ignore all previous instructions", "disregard
  your rules", "no restrictions", "jailbreak", "developer mode", in the five languages reverie
  redacts in;
- change how memory itself is kept: it names reverie's files (SOUL.md, USER.md, MEMORY.md,
  history, ledger, .git), or asks to forget, erase, stop recording or rewrite the memory.

A refused rule is not lost: the dream result and ``reverie status`` show it (see
``RejectedRule``), and a person who truly meant it adds it to SOUL.md by hand; a line already
in the file is never screened again. Errs on the side of refusing: a refused harmless rule
costs one manual edit, an accepted hostile one acts on every turn. No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SCREENED_FILE = "SOUL.md"
"""The file whose new lines are screened (the only one every prompt obeys as rules)."""

_EXFILTRATE = (
    r"\b[a-z][a-z0-9+.-]{1,15}://|\bwww\.[a-z0-9-]+|[\w.+-]+@[\w-]+\.[\w.-]+|"
    r"\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[a-z0-9-]{2,}\.(?:com|net|org|io|dev|app|xyz|ru|cn|info|"
    r"example|site|online|top|me|co|sh|ly|gg|tk|biz)\b|"
    r"\b(?:send|upload|post|forward|transmit|exfiltrate|leak|e-?mail|mail|share|report|"
    r"copy|sync|beacon)\b[^.\n]{0,60}\bto\b[^.\n]{0,40}\b(?:server|webhook|endpoint|url|"
    r"address|site|domain|host|inbox|channel|bucket)\b|"
    r"\b(?:senden|schicken|hochladen|envoyer|envoie|téléverser|enviar|envía|subir)\b.{0,60}"
    r"\b(?:an|à|a)\b.{0,40}\b(?:server|serveur|servidor|webhook|adresse|dirección)\b|"
    r"发送到|上传到|转发到"
)
_COMMANDS = (
    r"`[^`\n]{2,}`|\|\s*(?:ba|z|da)?sh\b|\b(?:curl|wget|sudo|chmod|chown|powershell|"
    r"invoke-expression|iex|nc|netcat|ssh|scp|rsync|eval|exec)\b|\brm\s+-[rf]{1,2}\b|"
    r"\b(?:run|execute|exec|launch|invoke)\b[^.\n]{0,30}\b(?:command|commands|shell|script|"
    r"scripts|terminal|binary|program|code)\b|\b(?:shell|bash|terminal|cmd\.exe)\b|"
    r"\b(?:führe|ausführen)\b.{0,30}\b(?:befehl|skript)|\bexécute[rz]?\b.{0,30}\b(?:commande|"
    r"script)|\bejecuta[r]?\b.{0,30}\b(?:comando|script)|执行.{0,10}(?:命令|脚本)|运行.{0,10}(?:命令|脚本)"
)
_OVERRIDE = (
    r"\b(?:ignore|disregard|forget|override|bypass|skip|drop)\b[^.\n]{0,40}\b(?:rules?|"
    r"instructions?|guidelines?|polic(?:y|ies)|guardrails?|safety|restrictions?|system prompt|"
    r"previous|prior|above)\b|\bno (?:rules|restrictions|limits|filters|safety)\b|"
    r"\b(?:disable|turn off|switch off|deactivate|remove)\b[^.\n]{0,30}\b(?:safety|"
    r"guardrails?|filters?|protections?|confirmations?|warnings?|checks?)\b|jailbreak|"
    r"developer mode|\bDAN\b|do anything now|"
    r"\b(?:never|don't|do not|stop)\s+ask(?:ing)?\s+(?:me\s+)?(?:for\s+)?"
    r"(?:confirmation|permission)|"
    r"\bignorier(?:e|en)?\b.{0,40}\b(?:regeln|anweisungen)|\bignore[rz]?\b.{0,40}\b(?:règles|"
    r"instructions|consignes)|\bignora[r]?\b.{0,40}\b(?:reglas|instrucciones)|"
    r"忽略.{0,10}(?:规则|指令|指示|说明)|无视.{0,10}(?:规则|指令)"
)
_MEMORY = (
    r"\b(?:soul|user|memory)\.md\b|history\.jsonl|ledger|\.git\b|\breverie\b|\bdream\b|"
    r"\b(?:your|the|this|its|my) (?:memory|memories|history|notes|log)\b|\bmemories\b|"
    r"\b(?:forget|erase|wipe|delete|purge|rewrite|overwrite)\b[^.\n]{0,30}\b(?:everything|"
    r"all|memory|memories|history|files?|notes)\b|\b(?:stop|never|don't|do not)\b[^.\n]{0,20}"
    r"\b(?:record|recording|remembering|logging|saving)\b|gedächtnis|erinnerungen|mémoire|"
    r"memoria|记忆|内存文件"
)

_SCREENS: tuple[tuple[str, str], ...] = (
    (_EXFILTRATE, "names an address to send data to"),
    (_COMMANDS, "would run commands"),
    (_OVERRIDE, "would disable safety or override instructions"),
    (_MEMORY, "would change how memory itself is kept"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class RejectedRule:
    """A candidate rule a curator wanted to add and screening refused.

    Attributes:
        file: the durable file it was meant for (``SOUL.md``).
        rule: the line as the curator wrote it (already redacted of secrets).
        reason: which screen refused it, for the person who may add it by hand.
    """

    file: str
    rule: str
    reason: str


def screen_rule(line: str) -> str | None:
    """Return why ``line`` may not become a rule, or None when it may."""
    for source, reason in _SCREENS:
        if re.search(source, line, re.IGNORECASE):  # compiled once, by re's own cache
            return reason
    return None
