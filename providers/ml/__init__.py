"""Machine learning: Unity Catalog registered models and their aliases, MLflow experiments."""
