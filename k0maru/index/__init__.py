"""The index: walking, parsing, storing.

PARSER_VERSION lives here, not in markdown.py, so a no-change scan can check it without importing
the parser."""

PARSER_VERSION = "13"  # bump when parsing changes what is stored: the next scan re-parses all
