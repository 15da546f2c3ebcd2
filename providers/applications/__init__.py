"""Apps: Databricks apps, their compute, resources and deployments."""
