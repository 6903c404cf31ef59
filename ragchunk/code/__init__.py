"""Source code on tree-sitter syntax trees, shared by the ``code`` parser and strategy.

``languages`` is the language table (pure data: names, extensions, grammar packages and the node
types that are definitions); ``syntax`` parses text with tree-sitter and finds the definitions,
their symbols and the syntax errors, in code-point offsets.
"""
