"""Text utilities: detokenization with offsets, inflection, WordNet, constraint expansion."""
