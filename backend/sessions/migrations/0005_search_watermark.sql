-- 0005: the search index is brought up to date in batches, after the
-- writes that added text rather than inside each of them. meta's
-- search_indexed is the highest search_docs id the index holds: every row
-- at or below it is indexed, every row above it is not yet. Before this
-- version every write indexed its own rows, so all of them are.

INSERT OR IGNORE INTO meta (key, value)
SELECT 'search_indexed', CAST(COALESCE(MAX(id), 0) AS TEXT) FROM search_docs;
