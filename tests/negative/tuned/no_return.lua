-- not a chunk that returns the table
entries = {}
