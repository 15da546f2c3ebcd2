# Databricks notebook source
# The local stack's notebook (Pulumi.local.yaml, workspace:notebooks): uploaded from this
# file as a PYTHON notebook, run by the demo job's `report` task.
import datetime
import json

# COMMAND ----------

report = {"report": "nightly", "day": datetime.date.today().isoformat()}
print(json.dumps(report))
