"""Batches: many variants of a config rendered locally or on a Dask cluster, and their report."""
