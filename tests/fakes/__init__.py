"""Test doubles shared by test suites and benchmarks (e.g. a scripted fake OpenAI-compatible server)."""
