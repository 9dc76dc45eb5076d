"""Importing match files: a match made ready to store without a database (prepare), the
import itself (importer) and its worker processes (worker, feed)."""
