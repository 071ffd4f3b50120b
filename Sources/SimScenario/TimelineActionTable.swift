import SimModel

/// One timeline action as a scenario writes it, declared once: its name, the action it is when
/// written as its name alone, its value's schema and decoder when written `{"name": value}`, and
/// what it does. The decoder's lists, the schema's `action` and docs/scenario-format.md's action
/// table are made from `TimelineActionTable.all`; what the action does in the model is declared
/// beside the action itself (`TimelineAction+Traits`, `World.perform`).
struct TimelineActionDefinition: Sendable {
  /// What a valued action's decoder is given: its value, the value's JSON path, the devices the
  /// entry names and the world decoded so far.
  struct Input {
    let value: JSONNode
    let path: String
    let devices: [Int]
    let spec: WorldSpec
  }

  /// The schema of a valued action's value: JSON text (where `{"$generated": part}` is filled in
  /// as elsewhere in the schema), or a node made from a declaration.
  enum ValueSchema: Sendable {
    case json(String)
    case node(@Sendable () -> JSONNode)
  }

  typealias Decode = @Sendable (ScenarioBuilder, Input) -> (action: TimelineAction.Action, store: Int?)?

  let name: String
  /// The action when written as its name alone (nil: it takes a value).
  let plain: TimelineAction.Action?
  /// Its value's schema when written `{"name": value}` (nil: a name only).
  let valueSchema: ValueSchema?
  /// Decodes the value (nil: a name only).
  let decode: Decode?
  /// A value it takes, as JSON text (nil: a name only): the action table shows it, and a test
  /// holds that the schema and the decoder both accept it.
  let example: String?
  /// What it does, in a phrase (the action table of docs/scenario-format.md).
  let meaning: String
  /// The fault the swarm may inject with it, and the action that heals it (nil: none).
  let swarm: SwarmFault?

  init(
    _ name: String, example: String? = nil, plain: TimelineAction.Action? = nil, value: ValueSchema? = nil,
    decode: Decode? = nil, meaning: String, swarm: SwarmFault? = nil
  ) {
    self.name = name
    self.example = example
    self.plain = plain
    self.valueSchema = value
    self.decode = decode
    self.meaning = meaning
    self.swarm = swarm
  }
}

/// A fault the swarm (`syncsim swarm`) injects with a timeline action: the action's JSON as a
/// timeline entry writes it, the JSON of the action that ends it, and whether it couples every
/// account (a forced throttle: the swarm's world then has a throttle to force).
public struct SwarmFault: Sendable {
  public let on: String
  public let off: String
  public let couplesAccounts: Bool

  init(on: String, off: String, couplesAccounts: Bool = false) {
    self.on = on
    self.off = off
    self.couplesAccounts = couplesAccounts
  }

  /// The faults the swarm draws from, one per action that declares one, in the table's order.
  public static let all: [SwarmFault] = TimelineActionTable.all.compactMap(\.swarm)

  /// What heals every fault at once: each fault's heal once, in the table's order, then a launch
  /// and an activation (every app in front).
  public static let heal: [String] = {
    let app = [#""launch""#, #""activate""#]
    var seen: [String] = []
    for fault in all where !seen.contains(fault.off) && !app.contains(fault.off) { seen.append(fault.off) }
    return seen + app
  }()
}

/// The timeline's actions, in the schema's order: a new action is a row here and its behaviour
/// in the model (a case of `TimelineAction.Action`, whose switches then name it).
enum TimelineActionTable {
  static let all: [TimelineActionDefinition] = [
    TimelineActionDefinition(
      "goOffline", plain: .goOffline, meaning: "the device loses its network",
      swarm: SwarmFault(on: #""goOffline""#, off: #""goOnline""#)),
    TimelineActionDefinition("goOnline", plain: .goOnline, meaning: "the device's network returns"),
    TimelineActionDefinition("plug", plain: .plug, meaning: "the device is plugged in"),
    TimelineActionDefinition("unplug", plain: .unplug, meaning: "the device is unplugged"),
    TimelineActionDefinition(
      "launch", plain: .launch, meaning: "the person opens the app (launching it if it is not running)"),
    TimelineActionDefinition("activate", plain: .activate, meaning: "the app comes to the front"),
    TimelineActionDefinition(
      "background", plain: .background, meaning: "the app leaves the front",
      swarm: SwarmFault(on: #""background""#, off: #""activate""#)),
    TimelineActionDefinition(
      "terminate", plain: .terminate, meaning: "the system terminates the app; the next launch asks for its work again",
      swarm: SwarmFault(on: #""terminate""#, off: #""launch""#)),
    TimelineActionDefinition(
      "forceQuit", plain: .forceQuit, meaning: "the person force-quits the app: no push launches it until it is opened",
      swarm: SwarmFault(on: #""forceQuit""#, off: #""launch""#)),
    TimelineActionDefinition(
      "crash", plain: .crash, meaning: "the app crashes: no deactivation, unsaved edits lost",
      swarm: SwarmFault(on: #""crash""#, off: #""launch""#)),
    TimelineActionDefinition(
      "sendChanges", plain: .sendChanges, meaning: "CKSyncEngine's `sendChanges`: a send at once"),
    TimelineActionDefinition(
      "fetchChanges", plain: .fetchChanges, meaning: "CKSyncEngine's `fetchChanges`: a fetch at once"),
    TimelineActionDefinition(
      "saveOutsideEngine", plain: .saveOutsideEngine,
      meaning: "a save its engine does not fetch until the app is launched again"),
    TimelineActionDefinition(
      "lowPower", example: "true",
      value: .json(
        #"""
        {
          "description": "turn Low Power Mode on (true) or off (false)",
          "type": "boolean"
        }
        """#),
      decode: { builder, input in builder.reader.bool(input.value, input.path).map { (.lowPower($0), nil) } },
      meaning: "Low Power Mode on (true) or off (false)",
      swarm: SwarmFault(on: #"{"lowPower": true}"#, off: #"{"lowPower": false}"#)),
    TimelineActionDefinition(
      "battery", example: "15",
      value: .json(
        #"""
        {
          "description": "set the battery level, percent (0 to 100)",
          "type": "number",
          "minimum": 0,
          "maximum": 100
        }
        """#),
      decode: { builder, input in
        builder.reader.number(input.value, input.path, min: 0, max: 100).map { (.battery($0), nil) }
      },
      meaning: "the battery level, percent"),
    TimelineActionDefinition(
      "nudge", example: #"{"every": "10m", "until": "2h"}"#, plain: .nudge(every: nil, until: nil, jitter: .zero),
      value: .json(
        #"""
        {
          "description": "post the app's nudge repeatedly ([HowTo]'s didBecomeActive post)",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "every": {
              "description": "the period of the nudges (a duration, at least 10 ms)",
              "$ref": "#/$defs/duration"
            },
            "until": {
              "description": "when the nudges stop, from the start of the run (a duration; default: the end of the run)",
              "$ref": "#/$defs/duration"
            },
            "jitter": {
              "description": "each repeat is delayed by a uniform draw in [0, jitter) from its time on the clock (a duration; default 0)",
              "$ref": "#/$defs/duration",
              "default": 0
            }
          }
        }
        """#),
      decode: { builder, input in builder.nudgeAction(input.value, input.path).map { ($0, nil) } },
      meaning: "the app's nudge ([HowTo]'s `didBecomeActive` post): once, or every period until a time"),
    TimelineActionDefinition(
      "edit", example: #"{"kind": "update"}"#,
      value: .json(
        #"""
        {
          "description": "one edit: a kind (insert, update, delete, softDelete, increment, addContribution) or an object",
          "oneOf": [
            {
              "$generated": "editKinds"
            },
            {
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "kind": {
                  "$generated": "editKind"
                },
                "entity": {
                  "description": "the entity edited (default: the model's first syncing entity)",
                  "type": "string"
                },
                "key": {
                  "type": "string",
                  "description": "a logical key for an insert (duplicates)"
                },
                "store": {"$generated": "storeIndex"}
              },
              "required": [
                "kind"
              ]
            }
          ]
        }
        """#), decode: { builder, input in builder.editAction(input) },
      meaning: "one edit of a kind, to an entity and store"),
    TimelineActionDefinition(
      "bulkInsert", example: #"{"count": 50000, "saves": 500, "over": "10m"}"#,
      value: .json(
        #"""
        {
          "description": "insert many objects, in one save or one save each",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "count": {
              "type": "integer",
              "description": "",
              "minimum": 1
            },
            "entity": {
              "description": "the entity inserted (default: the model's first syncing entity)",
              "type": "string"
            },
            "saves": {
              "description": "\"one\": a single save of all the objects; \"each\": a save per object; a number N: saves of N objects each, batches as apps import (default one)",
              "anyOf": [
                {"enum": ["one", "each"]},
                {"type": "integer", "minimum": 1}
              ]
            },
            "over": {
              "description": "with saves \"each\" or a batch size: the inserts are spread evenly over this long (a duration; default 0, all at once); with saves \"one\" it is ignored",
              "$ref": "#/$defs/duration"
            },
            "store": {"$generated": "storeIndex"}
          },
          "required": [
            "count"
          ]
        }
        """#),
      decode: { builder, input in
        builder.bulk(input.value, input.path, deletes: false, devices: input.devices, input.spec)
      },
      meaning: "many inserts, in one save, one save each or saves of N, spread over a time"),
    TimelineActionDefinition(
      "bulkDelete", example: #"{"count": "all"}"#,
      value: .json(
        #"""
        {
          "description": "delete many live objects, first created first, in one save or one save each (exported with saves, 400 items a request, a delete costing its ID)",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "count": {
              "description": "how many objects (default \"all\": every live object of the entity on the device)",
              "oneOf": [
                {
                  "type": "integer",
                  "minimum": 1
                },
                {
                  "const": "all"
                }
              ]
            },
            "entity": {
              "description": "the entity deleted (default: the model's first syncing entity)",
              "type": "string"
            },
            "saves": {
              "description": "\"one\": a single save of all the deletes; \"each\": a save per object; a number N: saves of N objects each, batches as apps import (default one)",
              "anyOf": [
                {"enum": ["one", "each"]},
                {"type": "integer", "minimum": 1}
              ]
            },
            "over": {
              "description": "with saves \"each\" or a batch size: the deletes are spread evenly over this long (a duration; default 0, all at once); with saves \"one\" it is ignored",
              "$ref": "#/$defs/duration"
            },
            "store": {"$generated": "storeIndex"}
          }
        }
        """#),
      decode: { builder, input in
        builder.bulk(input.value, input.path, deletes: true, devices: input.devices, input.spec)
      },
      meaning: "many deletes of live objects, first created first"),
    TimelineActionDefinition(
      "resetSync", example: #""accountChange""#,
      value: .node {
        .object([
          ("description", .string("a mirroring reset of the store, with its reason")),
          ("enum", .array(ResetReason.allCases.map { .string($0.rawValue) })),
        ])
      },
      decode: { builder, input in
        builder.reader.choice(input.value, input.path, ResetReason.self).map { (.resetSync($0), nil) }
      },
      meaning: "a mirroring reset of the store, with its reason"),
    TimelineActionDefinition(
      "toggleSync", example: #"{"removeStoreFirst": true}"#,
      value: .json(
        #"""
        {
          "description": "turn sync off and on again for the store ([HowTo]'s 134410 case)",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "removeStoreFirst": {
              "description": "false: a second container on the same store, setup fails (134410) and the store stops syncing; true: the store is removed first, unexported changes are lost, everything is re-imported (default false)",
              "type": "boolean"
            }
          },
          "required": [
            "removeStoreFirst"
          ]
        }
        """#),
      decode: { builder, input in
        guard let fields = builder.reader.object(input.value, input.path, known: ["removeStoreFirst"]),
          let remove = builder.reader.required(fields, "removeStoreFirst", input.path, { builder.reader.bool($0, $1) })
        else { return nil }
        return (.toggleSync(removeStoreFirst: remove), nil)
      },
      meaning: "sync turned off and on again: 134410, or the store removed first"),
    TimelineActionDefinition(
      "quota", example: "0",
      value: .json(
        #"""
        {
          "description": "the owning account's iCloud quota in bytes, or null for unlimited",
          "oneOf": [
            {
              "type": "integer",
              "minimum": 0
            },
            {
              "type": "null"
            }
          ]
        }
        """#),
      decode: { builder, input in
        if case .null = input.value.value { return (.quota(bytes: nil), nil) }
        return builder.reader.integer(input.value, input.path, min: 0, max: Int.max / 2).map {
          (.quota(bytes: Int64($0)), nil)
        }
      },
      meaning: "the owning account's iCloud quota in bytes, or null for unlimited",
      swarm: SwarmFault(on: #"{"quota": 1000}"#, off: #"{"quota": null}"#)),
    TimelineActionDefinition(
      "throttle", example: "true",
      value: .json(
        #"""
        {
          "description": "force the container's throttle on (true) or off (false)",
          "type": "boolean"
        }
        """#),
      decode: { builder, input in builder.reader.bool(input.value, input.path).map { (.throttle($0), nil) } },
      meaning: "the container's throttle forced on (true) or off (false)",
      swarm: SwarmFault(on: #"{"throttle": true}"#, off: #"{"throttle": false}"#, couplesAccounts: true)),
    TimelineActionDefinition(
      "set", example: #"{"thermal": "heavy"}"#,
      value: .json(
        #"""
        {
          "$generated": "conditions"
        }
        """#), decode: { builder, input in builder.setAction(input.value, input.path).map { ($0, nil) } },
      meaning: "one declared device condition set to a value (docs/parameters.md)"),
  ]
}

extension TimelineActionTable {
  /// The action table of docs/scenario-format.md (`syncsim schema actions`): each action, how it
  /// is written, what it does and the client it is for.
  static var document: String {
    var lines = ["| action | written as | what it does | client |", "|---|---|---|---|"]
    for row in all {
      var forms: [String] = []
      if row.plain != nil { forms.append("`\"\(row.name)\"`") }
      if let example = row.example { forms.append("`{\"\(row.name)\": \(example)}`") }
      let client =
        switch (row.plain ?? exampleAction(row))?.onlyFor {
        case nil: "both"
        case .coreData?: "Core Data"
        case .syncEngine?: "CKSyncEngine"
        }
      lines.append("| `\(row.name)` | \(forms.joined(separator: " or ")) | \(row.meaning) | \(client) |")
    }
    return lines.joined(separator: "\n")
  }

  /// The action `row`'s example decodes to, in a world of two devices of the client it is for.
  static func exampleAction(_ row: TimelineActionDefinition) -> TimelineAction.Action? {
    guard let example = row.example else { return nil }
    for client in SyncClient.allCases {
      let text =
        #"{"version": 1, "devices": [{"name": "a", "client": ""# + client.rawValue + #""}, {"name": "b", "client": ""#
        + client.rawValue + #""}], "timeline": [{"at": "1h", "devices": "a", "action": {""# + row.name + #"": "#
        + example + "}}]}"
      if let scenario = try? ScenarioDecoder.decode(Array(text.utf8), file: "example.json") {
        return scenario.0.spec.timeline.first?.action
      }
    }
    return nil
  }
}
