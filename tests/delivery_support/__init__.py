"""Helpers for alert delivery tests: loopback HTTP receivers, sample records, golden files."""
