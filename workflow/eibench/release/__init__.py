"""The AttuneBench release format: read, validate, tidy and write.

See ``docs/release-format.md`` for every field, alias and normalisation rule applied here.
"""
