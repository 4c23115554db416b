"""Streamlit building blocks shared by the pages: session, guards, messages, generic entity screens."""
