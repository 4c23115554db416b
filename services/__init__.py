"""Thin services: load and save documents, call rules, write the audit log, produce PDFs."""
