"""Shipped test support: parts that tests and benchmarks use, never the product.

``local_cluster`` runs a throwaway PostgreSQL cluster on loopback.
"""
