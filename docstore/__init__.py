"""The embedded document store: a pymongo-API subset over SQLite, reached only through services.store."""
