"""The measurement API: fastenough.time (one op in three device windows),
fastenough.sweep_batch (the batch-size knee), fastenough.bucket_by_length and
fastenough.abba (an interleaved in-process A/B). Statistics come from the C++
core (fastenough._core); this package only drives the device."""
