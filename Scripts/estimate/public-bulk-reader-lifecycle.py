#!/usr/bin/env python3
"""Writes the scenario of issue 71, item 7 to standard output: two bulk inserts of a million
objects on a public store, and 20,000 app-lifecycle entries (activate, background, terminate,
launch) on its reader, whose copy is replayed. 1.5 MB of JSON, so made rather than committed:

    python3 Scripts/estimate/public-bulk-reader-lifecycle.py > /tmp/lifecycle.json
    syncsim bench estimate /tmp/lifecycle.json Scripts/estimate/*.json
"""
import json

actions = ["activate", "background", "terminate", "launch"]
timeline = [
    {"at": "1m", "devices": "author", "action": {"bulkInsert": {"count": 1000000}}},
    {"at": "2m", "devices": "author", "action": {"bulkInsert": {"count": 1000000}}},
]
timeline += [{"at": f"{300 + i}s", "devices": "reader", "action": actions[i % 4]} for i in range(20000)]
scenario = {
    "version": 1,
    "name": "public-bulk-reader-lifecycle",
    "description": "Issue 71, item 7: two bulk inserts of a million objects on a public store, and "
    "20,000 app-lifecycle entries on its reader, whose copy is replayed.",
    "seed": 1,
    "duration": "1d",
    "devices": [{"name": "author", "stores": ["public"]}, {"name": "reader", "stores": ["public"]}],
    "timeline": timeline,
    "outputs": ["summary"],
}
print(json.dumps(scenario, indent=1))
