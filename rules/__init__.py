"""Pure legal rules of the Painel Municipal: no Streamlit, no database, no files.

Every public decision cites the act and article it comes from. Values that the
law leaves to the municipality, or that change over time, come in through a
:class:`rules.params.ParameterBook` and are never literals in the code.
"""
