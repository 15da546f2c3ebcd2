# Databricks notebook source
# The local stack's pipeline source (Pulumi.local.yaml, workspace:pipelines): uploaded from
# this file as a PYTHON notebook; the `orders` pipeline reads the demo volume with it.
import dlt  # noqa: F401  (the pipeline runtime provides it)

# COMMAND ----------


@dlt.table(comment="Orders as they land in the demo volume")
def orders_raw():
    return spark.read.format("json").load("/Volumes/demo/landing/files/orders/")  # type: ignore[name-defined]  # noqa: F821
