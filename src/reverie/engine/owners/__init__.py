"""Owners: whose memory it is, and how many principals share one server.

A *principal* (a person, or an agent) owns one workspace (``home``); a server finds a
request's principal from its credential (``tokens``, ``access``), keeps a bounded number of
principals' engines open (``pool``) and runs their background maintenance fairly.
"""

from reverie.engine.owners.access import PRINCIPAL_HEADER, Access, resolve
from reverie.engine.owners.database_home import DatabaseHome
from reverie.engine.owners.database_tokens import DatabaseTokenBook
from reverie.engine.owners.home import FolderHome, Home, Openers, token_book
from reverie.engine.owners.maintenance import CheckReport, Maintenance
from reverie.engine.owners.names import (
    DEFAULT_PRINCIPAL,
    check_principal,
    folder_name,
    principal_of,
)
from reverie.engine.owners.pool import EnginePool, PoolStats
from reverie.engine.owners.tokens import Grant, GrantKind, SqliteTokenBook, TokenBook

__all__ = [
    "DEFAULT_PRINCIPAL",
    "PRINCIPAL_HEADER",
    "Access",
    "CheckReport",
    "DatabaseHome",
    "DatabaseTokenBook",
    "EnginePool",
    "FolderHome",
    "Grant",
    "GrantKind",
    "Home",
    "Maintenance",
    "Openers",
    "PoolStats",
    "SqliteTokenBook",
    "TokenBook",
    "check_principal",
    "folder_name",
    "principal_of",
    "resolve",
    "token_book",
]
