"""Jobs at the depth of Jobs API 2.2, their permissions and runs."""
