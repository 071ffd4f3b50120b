import SimKernel

/// One kind a distribution of durations is written as (`{"kind": value}`): its name, its value's
/// schema (JSON text) and its reader.
struct DistributionKind: Sendable {
  let name: String
  let value: String
  let read: @Sendable (ScenarioReader, JSONNode, String) -> Distribution?
}

/// The kinds of a distribution of durations, declared once: the reader's known kinds and
/// dispatch (`ScenarioReader.distribution`) and the schema's `$defs/distribution` come from these
/// rows, so a kind added here is one both accept.
enum DistributionKindTable {
  static let all: [DistributionKind] = [
    DistributionKind(
      name: "constant", value: ##"{"description": "always this duration", "$ref": "#/$defs/duration"}"##,
      read: { reader, value, path in reader.duration(value, path).map { .constant($0.seconds) } }),
    DistributionKind(
      name: "uniform",
      value: ##"""
        {"description": "uniform between [lower, upper] (durations, lower ≤ upper)", "type": "array",
         "items": {"$ref": "#/$defs/duration"}, "minItems": 2, "maxItems": 2}
        """##,
      read: { reader, value, path in reader.uniformDistribution(value, path) }),
    DistributionKind(
      name: "exponential",
      value: ##"""
        {"description": "exponential with the given mean", "type": "object", "additionalProperties": false,
         "properties": {"mean": {"description": "the mean (a positive duration)", "$ref": "#/$defs/duration"}},
         "required": ["mean"]}
        """##,
      read: { reader, value, path in reader.exponentialDistribution(value, path) }),
    DistributionKind(
      name: "normal",
      value: ##"""
        {"description": "normal, truncated at zero", "type": "object", "additionalProperties": false,
         "properties": {
           "mean": {"description": "the mean (a duration)", "$ref": "#/$defs/duration"},
           "sd": {"description": "the standard deviation (a duration)", "$ref": "#/$defs/duration"}},
         "required": ["mean", "sd"]}
        """##,
      read: { reader, value, path in reader.normalDistribution(value, path) }),
    DistributionKind(
      name: "lognormal",
      value: ##"""
        {"description": "either median and p99 (durations, p99 ≥ median), or mu and sigma of the log of seconds",
         "oneOf": [
           {"type": "object", "additionalProperties": false,
            "properties": {
              "median": {"description": "the median (a positive duration)", "$ref": "#/$defs/duration"},
              "p99": {"description": "the 99th percentile (a positive duration, at least the median)", "$ref": "#/$defs/duration"}},
            "required": ["median", "p99"]},
           {"type": "object", "additionalProperties": false,
            "properties": {
              "mu": {"description": "the mean of the natural log of seconds", "type": "number"},
              "sigma": {"description": "the standard deviation of the natural log of seconds (0 or more)", "type": "number", "minimum": 0}},
            "required": ["mu", "sigma"]}]}
        """##,
      read: { reader, value, path in reader.lognormal(value, path) }),
    DistributionKind(
      name: "choice",
      value: ##"""
        {"description": "one of the listed durations, chosen with the given weights", "type": "array", "minItems": 1,
         "items": {"type": "object", "additionalProperties": false,
           "properties": {
             "value": {"description": "a duration", "$ref": "#/$defs/duration"},
             "weight": {"description": "its relative weight (positive)", "type": "number", "exclusiveMinimum": 0}},
           "required": ["value", "weight"]}}
        """##,
      read: { reader, value, path in reader.choiceDistribution(value, path) }),
  ]

  /// Every kind's name, in the schema's order.
  static let names = all.map(\.name)

  /// The schema's `$defs/distribution`: a plain duration, or an object with exactly one kind.
  static func schemaNode() -> JSONNode {
    let kinds: [JSONNode] = all.map { kind in
      guard let value = try? JSONParser.parse(Array(kind.value.utf8)) else {
        preconditionFailure("the schema of the distribution kind \(kind.name) is not JSON")
      }
      return .object([
        ("type", .string("object")), ("additionalProperties", .bool(false)),
        ("properties", .object([(kind.name, value)])), ("required", .array([.string(kind.name)])),
      ])
    }
    return .object([
      (
        "description",
        .string("a distribution of durations: a plain duration (constant) or an object with exactly one kind")
      ),
      ("oneOf", .array([.object([("$ref", .string("#/$defs/duration"))])] + kinds)),
    ])
  }
}
