"""The entity specs of the product: one declarative definition per collection, one module per area.

Adding a field to a spec makes it appear in the form, the list, the CSV export and import and the
validation, with no other change. Importing this package registers every spec.
"""
from services.shared.specs import common, maquinas, transporte  # noqa: F401
