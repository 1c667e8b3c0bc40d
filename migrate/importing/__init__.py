"""The import pipeline: read another eval tool's files (`readers`), let its import adapter
(`base` is their base class) turn each record into a v1 case, and write or update one
canonical file (`pipeline`)."""
