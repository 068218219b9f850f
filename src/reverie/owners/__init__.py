"""Owners: whose memory it is, and how many principals share one server.

A *principal* (a person, or an agent) owns one workspace (``home``); a server finds a
request's principal from its credential (``tokens``, ``access``), keeps a bounded number of
principals' engines open (``pool``) and runs their background maintenance fairly.
"""

from reverie.owners.access import PRINCIPAL_HEADER, Access, resolve
from reverie.owners.database_home import DatabaseHome
from reverie.owners.database_tokens import DatabaseTokenBook
from reverie.owners.home import FolderHome, Home, Openers, token_book
from reverie.owners.maintenance import CheckReport, Maintenance
from reverie.owners.names import DEFAULT_PRINCIPAL, check_principal, folder_name, principal_of
from reverie.owners.pool import EnginePool, PoolStats
from reverie.owners.tokens import Grant, GrantKind, SqliteTokenBook, TokenBook

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
