"""The embedded document store: a small pymongo subset over the standard library's ``sqlite3``,
reached by the product only through ``services.store``.

One SQLite file per database (``painel.sqlite3`` for the panel's database) in WAL mode, one table
per collection ``(id PRIMARY KEY, doc TEXT)``: ``id`` holds the encoded ``_id`` and ``doc`` the rest
of the document as JSON. Filters, sorts, skip/limit, counts and ``distinct`` are compiled to SQL over
``json_extract(doc, '$."path"')``; indexes are SQLite expression indexes on the same expressions, so
a list query (filter + sort) walks an index instead of reading the collection. Updates are applied in
Python to the row inside one ``BEGIN IMMEDIATE`` transaction, so they are atomic across threads and
processes. One connection per thread.

Values keep their BSON type. JSON numbers, strings, lists, objects and null are stored as such; the
other types are text with a tag that sorts correctly within the type: ``\\x01t`` + fixed-width ISO
UTC instant (milliseconds, as MongoDB keeps them), ``\\x01o`` + ObjectId hex, ``\\x01q0``/``\\x01q1``
for booleans (so ``True`` is never ``1``), ``\\x01k`` + length + subtype + hex for binary (MongoDB's
order: length first), ``\\x01a`` + an order-preserving decimal key + the exact Decimal128 text (so money compares as decimal, never through
float). A real string that starts with ``\\x01`` or holds a NUL is kept as ``\\x01s`` + the string with
those two characters escaped (SQLite's JSON functions stop at a NUL); such strings take part in
equality, ``$in`` and ``$regex`` but not in ``$gt``/``$lt`` ranges.

Semantics follow MongoDB for: ``{f: None}`` and ``$ne``/``$nin`` matching missing fields, equality and
``$in`` against array elements (paths that have ever held an array are remembered in ``__paths``),
arrays on every dotted path (each element, and the leaf array's own elements: ``{"a.b": None}``
matches a non-document ``a``, a document without ``b``, and an array ``a`` with a document element
without ``b`` or with ``b`` null — MongoDB 8.0's rule), BSON type bracketing of
``$gt``/``$gte``/``$lt``/``$lte`` (numbers of any kind compare together), missing/None first in an
ascending sort, two documents *missing* a non-sparse unique key colliding. Every filter, update and
projection is checked before any document is read, also on a collection never written (unknown
operators, ``$``-prefixed or conflicting update paths, projection path collisions, an upsert whose
filter names a path twice), and wrong argument types raise pymongo's ``TypeError``.

NOT supported (raises ``pymongo.errors.OperationFailure``, never scans silently; the list is
``docstore.support.REFUSED``): top-level query operators ``$where``, ``$expr``, ``$text``,
``$jsonSchema``, ``$comment``; field query operators ``$elemMatch``, ``$size``, ``$all``, ``$type``,
``$mod``, ``$bitsAllSet``, ``$bitsAnySet``, ``$bitsAllClear``, ``$bitsAnyClear``, ``$geoWithin``,
``$geoIntersects``, ``$near``, ``$nearSphere``; update operators ``$rename``, ``$pop``, ``$pullAll``,
``$currentDate``, ``$mul``, ``$bit``; positional update paths ``$``, ``$[]``, ``$[<identifier>]``;
``$push`` modifiers ``$slice``, ``$sort``, ``$position`` (``$each`` is supported); projection
operators ``$``, ``$elemMatch``, ``$slice``, ``$meta``. Also refused: aggregation, text/hashed/geo indexes,
compound ``_id`` documents, sessions, change streams. Known differences kept on purpose: a sort on a
field holding arrays orders by the array's JSON text (MongoDB uses its smallest/largest element);
values of different BSON types in one sorted field sort by tag, not by MongoDB's full type order
(numbers and Decimal128 stored in the same field do not interleave in a sort, though they compare
together in filters); datetimes keep milliseconds (as MongoDB does); an index on a field holding
arrays indexes the whole array (MongoDB indexes each element: a unique index over arrays differs),
and a filter on such a path checks the elements with ``json_each`` rather than through the index.

A damaged file (SQLite's ``SQLITE_CORRUPT``/``SQLITE_NOTADB``, met by any statement or fetch of the
engine's connections) raises ``docstore.connection.Damaged`` and every later use of the engine refuses;
``Engine.quick_check(seconds)`` reads the whole file for damage within a time bound.
"""
from __future__ import annotations

from docstore.client import Client, Database
from docstore.collection import Collection
from docstore.cursor import Cursor

__all__ = ["Client", "Database", "Collection", "Cursor"]
