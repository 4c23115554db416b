"""The mayor's office: the figures of a period, their exports and the Relatório gerencial PDF."""
