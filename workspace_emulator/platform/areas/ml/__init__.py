"""Machine learning: Unity Catalog registered models and MLflow experiments."""
