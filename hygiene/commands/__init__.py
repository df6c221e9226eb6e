"""One module per subcommand: each parses its options and calls plain functions."""
