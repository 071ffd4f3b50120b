/// The JSON Schema of scenario files, printed by `syncsim schema` and committed as
/// `Scenarios/schema.json` (a test keeps both equal to what the decoder accepts).
public enum ScenarioSchema {
  public static let text = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://syncsim.invalid/schema/scenario-v1.json",
  "title": "SyncSim scenario, version 1",
  "description": "A scenario for SyncSim. Every field not given takes MODEL.md's default; tags: [A] Apple docs, [W] WWDC, [RE] reverse-engineered, [C] community, [assumed] no public number.",
  "type": "object",
  "additionalProperties": false,
  "required": [
    "version",
    "devices"
  ],
  "$defs": {
    "duration": {
      "description": "seconds as a number, or text with a unit: ns, us, ms, s, m, min, h, d, w (\"250ms\", \"1.5s\", \"30m\", \"24h\", \"7d\")",
      "oneOf": [
        {
          "type": "number"
        },
        {
          "type": "string",
          "pattern": "^[-+]?[0-9.eE+-]+ *(ns|us|µs|ms|s|m|min|h|d|w)?$"
        }
      ]
    },
    "distribution": {
      "description": "a distribution of durations: a plain duration (constant) or an object with exactly one kind",
      "oneOf": [
        {
          "$ref": "#/$defs/duration"
        },
        {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "constant": {
              "$ref": "#/$defs/duration"
            }
          },
          "required": [
            "constant"
          ]
        },
        {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "uniform": {
              "type": "array",
              "items": {
                "$ref": "#/$defs/duration"
              },
              "minItems": 2,
              "maxItems": 2
            }
          },
          "required": [
            "uniform"
          ]
        },
        {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "exponential": {
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "mean": {
                  "$ref": "#/$defs/duration"
                }
              },
              "required": [
                "mean"
              ]
            }
          },
          "required": [
            "exponential"
          ]
        },
        {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "normal": {
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "mean": {
                  "$ref": "#/$defs/duration"
                },
                "sd": {
                  "$ref": "#/$defs/duration"
                }
              },
              "required": [
                "mean",
                "sd"
              ]
            }
          },
          "required": [
            "normal"
          ]
        },
        {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "lognormal": {
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "median": {
                  "$ref": "#/$defs/duration"
                },
                "p99": {
                  "$ref": "#/$defs/duration"
                },
                "mu": {
                  "type": "number"
                },
                "sigma": {
                  "type": "number",
                  "minimum": 0
                }
              }
            }
          },
          "required": [
            "lognormal"
          ]
        },
        {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "choice": {
              "type": "array",
              "minItems": 1,
              "items": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "value": {
                    "$ref": "#/$defs/duration"
                  },
                  "weight": {
                    "type": "number",
                    "exclusiveMinimum": 0
                  }
                },
                "required": [
                  "value",
                  "weight"
                ]
              }
            }
          },
          "required": [
            "choice"
          ]
        }
      ]
    }
  },
  "properties": {
    "version": {
      "type": "integer",
      "description": "format version; read first, newer versions are rejected",
      "minimum": 1,
      "maximum": 1
    },
    "name": {
      "type": "string",
      "description": "names the results folder Results/<name>/",
      "default": "scenario"
    },
    "description": {
      "type": "string",
      "description": "what the scenario shows and the source it reproduces"
    },
    "seed": {
      "type": "integer",
      "description": "root seed of every random stream",
      "minimum": 0,
      "default": 1
    },
    "duration": {
      "$ref": "#/$defs/duration",
      "description": "simulated time",
      "default": "1h"
    },
    "environment": {
      "enum": [
        "development",
        "production"
      ],
      "description": "sets the public-database poll interval: 30 min in development, 24 h in production [A] TN3164"
    },
    "accounts": {
      "type": "integer",
      "description": "number of iCloud accounts (at least one more than the highest account a device uses)",
      "minimum": 1,
      "default": 1
    },
    "devices": {
      "type": "array",
      "minItems": 1,
      "description": "device groups; a group with count > 1 has members name#0, name#1, ...",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "name": {
            "type": "string",
            "description": "unique; not \"all\", no '#'"
          },
          "count": {
            "type": "integer",
            "description": "devices in the group",
            "minimum": 1,
            "maximum": 100000,
            "default": 1
          },
          "account": {
            "description": "account index, or \"perDevice\" (member k signs in to account k)",
            "default": 0,
            "oneOf": [
              {
                "type": "integer",
                "minimum": 0
              },
              {
                "const": "perDevice"
              }
            ]
          },
          "appState": {
            "enum": [
              "notRunning",
              "foreground",
              "background",
              "suspended"
            ],
            "default": "foreground",
            "description": "app state at the start"
          },
          "stores": {
            "type": "array",
            "default": [
              "private"
            ],
            "description": "the stores and the databases they mirror",
            "items": {
              "oneOf": [
                {
                  "enum": [
                    "private",
                    "public",
                    "localOnly"
                  ]
                },
                {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "shared": {
                      "type": "object",
                      "additionalProperties": false,
                      "properties": {
                        "owner": {
                          "type": "integer",
                          "minimum": 0
                        },
                        "participants": {
                          "type": "array",
                          "items": {
                            "type": "integer",
                            "minimum": 0
                          }
                        }
                      },
                      "required": [
                        "owner"
                      ]
                    }
                  },
                  "required": [
                    "shared"
                  ]
                }
              ]
            }
          },
          "savePolicy": {
            "description": "when the context saves [A] immediate; seed 004 for onBackground",
            "default": "immediate",
            "oneOf": [
              {
                "enum": [
                  "immediate",
                  "onBackground"
                ]
              },
              {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "debounce": {
                    "$ref": "#/$defs/duration"
                  }
                },
                "required": [
                  "debounce"
                ]
              },
              {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "interval": {
                    "$ref": "#/$defs/duration"
                  }
                },
                "required": [
                  "interval"
                ]
              }
            ]
          },
          "uiRefresh": {
            "description": "how imports become visible: fetchedResults [A], reloadOnImportEvent with a debounce (seed 004, ~5 s [C]), onLaunch",
            "default": "fetchedResults",
            "oneOf": [
              {
                "enum": [
                  "fetchedResults",
                  "reloadOnImportEvent",
                  "onLaunch"
                ]
              },
              {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "reloadOnImportEvent": {
                    "$ref": "#/$defs/duration"
                  }
                },
                "required": [
                  "reloadOnImportEvent"
                ]
              }
            ]
          },
          "backgroundPush": {
            "type": "boolean",
            "description": "the Remote notifications background mode [A]",
            "default": true
          },
          "power": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "battery": {
                "type": "number",
                "description": "percent",
                "minimum": 0,
                "maximum": 100,
                "default": 80
              },
              "pluggedIn": {
                "type": "boolean",
                "description": "",
                "default": false
              },
              "lowPowerMode": {
                "type": "boolean",
                "description": "",
                "default": false
              }
            }
          },
          "network": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "online": {
                "type": "boolean",
                "description": "",
                "default": true
              },
              "latency": {
                "$ref": "#/$defs/distribution",
                "description": "request round trip; default: cloud.requestLatency"
              },
              "uploadBytesPerSecond": {
                "type": "number",
                "description": "[assumed]",
                "exclusiveMinimum": 0,
                "default": 1000000
              },
              "downloadBytesPerSecond": {
                "type": "number",
                "description": "[assumed]",
                "exclusiveMinimum": 0,
                "default": 5000000
              }
            }
          },
          "visibilityRequiresForeground": {
            "type": "boolean",
            "description": "a person sees changes only while the app is in front [assumed]",
            "default": true
          },
          "uiMergeDelay": {
            "$ref": "#/$defs/duration",
            "description": "import to view-context merge [assumed]",
            "default": "50ms"
          }
        },
        "required": [
          "name"
        ]
      }
    },
    "model": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "entities": {
          "type": "array",
          "minItems": 1,
          "items": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "name": {
                "type": "string"
              },
              "attributes": {
                "type": "array",
                "description": "attributes with typical sizes; above 750 KB a value becomes an asset [W] WWDC19",
                "items": {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "name": {
                      "type": "string"
                    },
                    "bytes": {
                      "type": "integer",
                      "description": "typical size",
                      "minimum": 0
                    }
                  },
                  "required": [
                    "name",
                    "bytes"
                  ]
                }
              },
              "manyToManyLinks": {
                "type": "integer",
                "description": "CDMR join records per new object [A]",
                "minimum": 0,
                "default": 0
              }
            },
            "required": [
              "name"
            ]
          }
        }
      },
      "description": "the app's data model (record sizes)"
    },
    "cloud": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "requestLatency": {
          "$ref": "#/$defs/distribution",
          "description": "round trip of one request [assumed] lognormal median 150ms p99 2s"
        },
        "recordsPerOperation": {
          "type": "integer",
          "description": "[A][RE] 400",
          "minimum": 1,
          "default": 400
        },
        "bytesPerOperation": {
          "type": "integer",
          "description": "[RE] 1.5 MiB",
          "minimum": 1,
          "default": 1572864
        },
        "savePolicy": {
          "enum": [
            "changedKeys",
            "allKeys"
          ],
          "default": "changedKeys",
          "description": "[W] WWDC19 last writer wins; [RE] changed keys"
        },
        "importPageSize": {
          "type": "integer",
          "description": "[C] ~200",
          "minimum": 1,
          "default": 200
        },
        "applyTimePerRecord": {
          "$ref": "#/$defs/duration",
          "description": "[C] ~3.5ms",
          "default": "3.5ms"
        },
        "recordOverheadBytes": {
          "type": "integer",
          "description": "[assumed]",
          "minimum": 0,
          "default": 300
        },
        "joinRecordBytes": {
          "type": "integer",
          "description": "[assumed]",
          "minimum": 0,
          "default": 400
        },
        "assetThresholdBytes": {
          "type": "integer",
          "description": "[W] WWDC19 ~750 KB",
          "minimum": 1,
          "default": 750000
        }
      },
      "description": "the CloudKit server"
    },
    "push": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "fanoutLatency": {
          "$ref": "#/$defs/distribution",
          "description": "commit to apsd [assumed] lognormal median 2s p99 60s"
        },
        "deliveryLatency": {
          "$ref": "#/$defs/duration",
          "description": "apsd to app [A] TN3163",
          "default": "100ms"
        },
        "dropProbability": {
          "type": "number",
          "description": "[assumed]",
          "minimum": 0,
          "maximum": 1,
          "default": 0
        },
        "backgroundBudgetPerHour": {
          "type": "integer",
          "description": "background wakes per hour [A] two or three",
          "minimum": 0,
          "default": 3
        },
        "coalescingWindow": {
          "$ref": "#/$defs/duration",
          "description": "[assumed] 0 = off",
          "default": 0
        },
        "offlineStorage": {
          "$ref": "#/$defs/duration",
          "description": "[A] 30 days",
          "default": "30d"
        }
      },
      "description": "silent pushes through APNs"
    },
    "polling": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "interval": {
          "$ref": "#/$defs/duration",
          "description": "[A] TN3164: 30m development, up to 24h production",
          "default": "30m"
        },
        "clock": {
          "enum": [
            "appUse",
            "wallClock"
          ],
          "default": "appUse",
          "description": "[W] WWDC20 app use; [A] technotes allow wall clock"
        }
      },
      "description": "public-database polling"
    },
    "scheduler": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "decisionLatency": {
          "$ref": "#/$defs/distribution",
          "description": "[A] TN3163 0.38s; lognormal median 0.3s"
        },
        "reevaluationLatency": {
          "$ref": "#/$defs/duration",
          "description": "[A] TN3163 89ms",
          "default": "89ms"
        },
        "exportStartDelay": {
          "$ref": "#/$defs/duration",
          "description": "[A] TN3163 1s",
          "default": "1s"
        },
        "importStartDelay": {
          "$ref": "#/$defs/duration",
          "description": "[A] TN3163 95ms",
          "default": "95ms"
        },
        "emptyExportDuration": {
          "$ref": "#/$defs/duration",
          "description": "[A] TN3163 35ms",
          "default": "35ms"
        },
        "policyValidity": {
          "$ref": "#/$defs/duration",
          "description": "[RE] 900s",
          "default": "900s"
        },
        "exportRequestCoalescing": {
          "type": "boolean",
          "description": "[A] TN3163 error 134417",
          "default": true
        },
        "policies": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "activityGroup": {
              "description": "[A] TN3163 + [RE]; default on",
              "oneOf": [
                {
                  "type": "boolean"
                },
                {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "limit": {
                      "type": "integer",
                      "description": "[assumed] 1",
                      "minimum": 1,
                      "default": 1
                    }
                  }
                }
              ]
            },
            "rateLimit": {
              "description": "[RE] dasd: 60/60s, 120/5m, 360/1h, 480/4h, 1080/24h; default on",
              "oneOf": [
                {
                  "type": "boolean"
                },
                {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "windows": {
                      "type": "array",
                      "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                          "maxRuns": {
                            "type": "integer",
                            "description": "",
                            "minimum": 1
                          },
                          "window": {
                            "$ref": "#/$defs/duration"
                          }
                        },
                        "required": [
                          "maxRuns",
                          "window"
                        ]
                      }
                    },
                    "lowPowerWindow": {
                      "$ref": "#/$defs/duration",
                      "description": "[RE] 1h",
                      "default": "1h"
                    },
                    "exemptPushLaunches": {
                      "type": "boolean",
                      "description": "[RE]",
                      "default": true
                    }
                  }
                }
              ]
            },
            "lowPowerMode": {
              "description": "[A] + [RE]; default on",
              "oneOf": [
                {
                  "type": "boolean"
                },
                {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "batteryThreshold": {
                      "type": "number",
                      "description": "[RE] 30 %",
                      "minimum": 0,
                      "maximum": 100,
                      "default": 30
                    }
                  }
                }
              ]
            },
            "network": {
              "description": "[A]; default on",
              "oneOf": [
                {
                  "type": "boolean"
                },
                {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {}
                }
              ]
            },
            "singleDeviceAccount": {
              "description": "[RE] unconfirmed for Core Data; default off",
              "oneOf": [
                {
                  "type": "boolean"
                },
                {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "delay": {
                      "$ref": "#/$defs/duration",
                      "description": "[RE] 4h",
                      "default": "4h"
                    }
                  }
                }
              ]
            }
          },
          "description": "true or an object turns a policy on, false turns it off"
        }
      },
      "description": "the system scheduler, dasd"
    },
    "workloads": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "devices": {
            "description": "a device name, a group name (all its members), \"all\", or a list of these",
            "oneOf": [
              {
                "type": "string"
              },
              {
                "type": "array",
                "items": {
                  "type": "string"
                }
              }
            ]
          },
          "editsPerHour": {
            "type": "number",
            "description": "Poisson rate",
            "exclusiveMinimum": 0
          },
          "insertShare": {
            "type": "number",
            "description": "",
            "minimum": 0,
            "maximum": 1,
            "default": 0.3
          },
          "deleteShare": {
            "type": "number",
            "description": "",
            "minimum": 0,
            "maximum": 1,
            "default": 0
          },
          "entity": {
            "type": "string",
            "description": "entity name; default the first"
          },
          "foregroundOnly": {
            "type": "boolean",
            "description": "edit only while the app is in front",
            "default": false
          }
        },
        "required": [
          "devices",
          "editsPerHour"
        ]
      }
    },
    "usage": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "devices": {
            "description": "a device name, a group name (all its members), \"all\", or a list of these",
            "oneOf": [
              {
                "type": "string"
              },
              {
                "type": "array",
                "items": {
                  "type": "string"
                }
              }
            ]
          },
          "sessionsPerDay": {
            "type": "number",
            "description": "Poisson arrivals",
            "exclusiveMinimum": 0
          },
          "sessionLength": {
            "$ref": "#/$defs/distribution",
            "description": "[assumed] lognormal median 2m p99 20m"
          },
          "suspendAfter": {
            "$ref": "#/$defs/duration",
            "description": "[assumed]",
            "default": "10s"
          }
        },
        "required": [
          "devices",
          "sessionsPerDay"
        ]
      }
    },
    "timeline": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "at": {
            "$ref": "#/$defs/duration"
          },
          "devices": {
            "description": "a device name, a group name (all its members), \"all\", or a list of these",
            "oneOf": [
              {
                "type": "string"
              },
              {
                "type": "array",
                "items": {
                  "type": "string"
                }
              }
            ]
          },
          "action": {
            "oneOf": [
              {
                "enum": [
                  "goOffline",
                  "goOnline",
                  "plug",
                  "unplug",
                  "launch",
                  "activate",
                  "background",
                  "terminate",
                  "forceQuit",
                  "nudge"
                ]
              },
              {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "lowPower": {
                    "type": "boolean"
                  }
                },
                "required": [
                  "lowPower"
                ]
              },
              {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "battery": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 100
                  }
                },
                "required": [
                  "battery"
                ]
              },
              {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "nudge": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                      "every": {
                        "$ref": "#/$defs/duration"
                      },
                      "until": {
                        "$ref": "#/$defs/duration"
                      }
                    }
                  }
                },
                "required": [
                  "nudge"
                ]
              },
              {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "edit": {
                    "oneOf": [
                      {
                        "enum": [
                          "insert",
                          "update",
                          "delete",
                          "increment",
                          "addContribution"
                        ]
                      },
                      {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                          "kind": {
                            "enum": [
                              "insert",
                              "update",
                              "delete",
                              "increment",
                              "addContribution"
                            ]
                          },
                          "entity": {
                            "type": "string"
                          }
                        },
                        "required": [
                          "kind"
                        ]
                      }
                    ]
                  }
                },
                "required": [
                  "edit"
                ]
              },
              {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "bulkInsert": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                      "count": {
                        "type": "integer",
                        "description": "",
                        "minimum": 1
                      },
                      "entity": {
                        "type": "string"
                      },
                      "saves": {
                        "enum": [
                          "one",
                          "each"
                        ]
                      },
                      "over": {
                        "$ref": "#/$defs/duration"
                      }
                    },
                    "required": [
                      "count"
                    ]
                  }
                },
                "required": [
                  "bulkInsert"
                ]
              }
            ]
          }
        },
        "required": [
          "at",
          "devices",
          "action"
        ]
      }
    },
    "expect": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "metric": {
            "type": "string",
            "description": "a metric name from the README"
          },
          "max": {
            "oneOf": [
              {
                "type": "number"
              },
              {
                "type": "string"
              }
            ]
          },
          "min": {
            "oneOf": [
              {
                "type": "number"
              },
              {
                "type": "string"
              }
            ]
          },
          "equals": {
            "oneOf": [
              {
                "type": "number"
              },
              {
                "type": "string"
              }
            ]
          }
        },
        "required": [
          "metric"
        ]
      }
    },
    "sampleInterval": {
      "$ref": "#/$defs/duration",
      "description": "timeline.csv sampling interval; default about 200 samples"
    },
    "tolerances": {
      "type": "object",
      "description": "metric name → relative tolerance used by syncsim check",
      "additionalProperties": {
        "type": "number",
        "minimum": 0
      }
    }
  }
}
"""#
}
