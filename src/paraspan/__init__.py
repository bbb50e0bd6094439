"""paraspan: grow span-annotated corpora by rewriting sentences and carrying their labels over.

Importing the package does no work: models, readers and the CLI load on first use.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
