/// A section of per-device arrivals, `workloads` (edits) and `usage` (sessions), declared once:
/// its Poisson rate key, the periodic pattern that may replace it (`every`, `jitter`, `from`,
/// `until`, the same in both), and its own keys, each with its schema. The decoder's known keys
/// (`ScenarioBuilder.workloads`, `.usage`) and the schema's sections are made from it, so a key
/// added here is one the decoder accepts and the schema describes.
struct ArrivalSection: Sendable {
  /// The section's key, and what it is.
  let name: String
  let description: String
  /// The Poisson rate's key and its schema (JSON text).
  let rateKey: String
  let rate: String
  /// What `until` means in this section.
  let untilMeaning: String
  /// The section's own keys after the pattern's, each with its schema (JSON text, where
  /// `{"$generated": part}` is filled in as elsewhere in the schema).
  let own: [(key: String, schema: String)]

  /// Every key an entry may have, in the schema's order.
  var keys: [String] { ["devices", rateKey, "every", "jitter", "from", "until"] + own.map(\.key) }

  /// The section's schema: an array of entries with these keys, `devices` and either the rate or
  /// `every` required.
  func schemaNode(parameters: ParameterSet, part: (String) -> JSONNode) -> JSONNode {
    let pattern: [(String, String)] = [
      (
        "every",
        ##"{"description": "arrivals on a clock instead of Poisson: one every this long, the first at from + every (a duration, at least 10 ms; instead of \##(rateKey))", "$ref": "#/$defs/duration"}"##
      ),
      (
        "jitter",
        ##"{"description": "each periodic arrival is delayed by a uniform draw in [0, jitter) (a duration; default 0)", "$ref": "#/$defs/duration", "default": 0}"##
      ),
      (
        "from",
        ##"{"description": "periodic arrivals start counting here (a duration from the start of the run; default 0)", "$ref": "#/$defs/duration", "default": 0}"##
      ),
      ("until", ##"{"description": "\##(untilMeaning)", "$ref": "#/$defs/duration"}"##),
    ]
    let properties = ([("devices", Self.devices), (rateKey, rate)] + pattern + own).map { key, text in
      (key, ScenarioSchema.expand(Self.parse(text, key), parameters: parameters, part: part))
    }
    let required = { (key: String) in JSONNode.object([("required", .array([.string(key)]))]) }
    return .object([
      ("description", .string(description)),
      ("type", .string("array")),
      (
        "items",
        .object([
          ("type", .string("object")), ("additionalProperties", .bool(false)), ("properties", .object(properties)),
          ("required", .array([.string("devices")])), ("oneOf", .array([required(rateKey), required("every")])),
        ])
      ),
    ])
  }

  private static func parse(_ text: String, _ key: String) -> JSONNode {
    guard let node = try? JSONParser.parse(Array(text.utf8)) else {
      preconditionFailure("the schema of the key \(key) (ArrivalSection) is not JSON")
    }
    return node
  }

  /// The devices an entry drives.
  static let devices = #"""
    {
      "description": "the devices it drives: a name, a group, \"all\" or a list (required). a device name, a group name (all its members), \"all\", or a list of these",
      "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
    }
    """#

  /// Edits.
  static let workloads = ArrivalSection(
    name: "workloads", description: "Poisson edits per device: rate, kind mix, entity and store",
    rateKey: "editsPerHour",
    rate:
      ##"{"type": "number", "description": "edits per hour per device, Poisson (required). Poisson rate", "exclusiveMinimum": 0}"##,
    untilMeaning:
      "no edit after this (a duration from the start; default: the end of the run): the last periodic arrival, or where Poisson edits stop so the run can drain",
    own: [
      (
        "insertShare",
        ##"{"type": "number", "description": "the share of edits that insert a new object (the rest update or delete)", "minimum": 0, "maximum": 1, "default": 0.3}"##
      ),
      (
        "deleteShare",
        ##"{"type": "number", "description": "the share of edits that delete a live object; insertShare + deleteShare is at most 1", "minimum": 0, "maximum": 1, "default": 0}"##
      ),
      ("entity", ##"{"type": "string", "description": "entity name; default the first"}"##),
      (
        "foregroundOnly",
        ##"{"type": "boolean", "description": "edit only while the app is in front", "default": false}"##
      ),
      (
        "source",
        ##"{"enum": ["app", "extension"], "description": "what edits while the app is not in front: the app, which an edit wakes into the background for its backgroundGrace, or an extension (widget, share extension) whose saves wait for the app's next run to export", "default": "app"}"##
      ),
      ("store", ##"{"$generated": "storeIndex"}"##),
    ])

  /// App sessions.
  static let usage = ArrivalSection(
    name: "usage", description: "Poisson app sessions per device: foreground sessions, their length, suspension after",
    rateKey: "sessionsPerDay",
    rate:
      ##"{"type": "number", "description": "foreground sessions per day per device, Poisson (required). Poisson arrivals", "exclusiveMinimum": 0}"##,
    untilMeaning:
      "the last periodic arrival is at most here (a duration from the start; default: the end of the run)",
    own: [
      (
        "sessionLength",
        ##"{"$ref": "#/$defs/distribution", "description": "length of a session [assumed]. [assumed] lognormal median 2m p99 20m", "default": {"lognormal": {"median": "2m", "p99": "20m"}}}"##
      ),
      (
        "byHour",
        ##"{"type": "array", "description": "24 relative session rates, one per hour from midnight (needs start): sessionsPerDay spread as people open apps", "items": {"type": "number", "minimum": 0, "maximum": 1000000}, "minItems": 24, "maxItems": 24}"##
      ),
      (
        "suspendAfter",
        ##"{"$ref": "#/$defs/duration", "description": "from a session's end to suspension; by default the device's backgroundGrace (5 s [A])"}"##
      ),
    ])
}
