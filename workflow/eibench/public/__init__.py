"""Public datasets: the registry and fetching (with pinned checksums or a local mirror), and one
module per dataset that adapts or analyses it (ESConv, EmoBench-M, EQ-Bench)."""
