"""The inputs a verb is handed, each checked before use: files that must be regular
(input_file), bounded JSON documents (json_input), trace directories (trace_dir),
numbers (numbers), a run named by its history number (run_ref) and the plan of
`fastenough decide` (decide_plan)."""
