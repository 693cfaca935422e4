"""CNF formulations: each encoder builds a pysat CNF over an IDPool and decodes a model back."""
