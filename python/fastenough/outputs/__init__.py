"""What a verb writes: a file the user named (output_file) and JSON that is JSON
(json_output, never NaN or Infinity)."""
