"""Check digits that tell a real card number or IBAN from any run of digits. Pure functions."""

from __future__ import annotations


def luhn_valid(digits: str) -> bool:
    """True when ``digits`` (only 0-9) passes the Luhn check used by payment cards."""
    if not digits.isdigit():
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def iban_valid(text: str) -> bool:
    """True when ``text`` (spaces allowed) is an IBAN whose ISO 7064 mod-97 check holds."""
    compact = "".join(text.split()).upper()
    if not (15 <= len(compact) <= 34) or not compact.isalnum() or not compact.isascii():
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in moved)
    return int(number) % 97 == 1


def ssn_valid(text: str) -> bool:
    """True for a plausible US social security number ``AAA-GG-SSSS`` (dashes or spaces)."""
    area, group, serial = text.replace(" ", "-").split("-")
    return area not in {"000", "666"} and area[0] != "9" and group != "00" and serial != "0000"
