"""A job's ranks: the rank summaries `analyze --rank-summaries DIR` writes and
`merge` reads (rank_summaries), and their summarising on a Dask cluster
(dask_executor)."""
