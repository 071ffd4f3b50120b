/// The objects of a scenario declared once (`ScenarioObject`): the top level, a device and its
/// stores', save policy's and UI refresh's objects, the model, the timeline's entries and the
/// sweep, each key with its schema. The decoder's known keys come from here, and so do the
/// schema's objects; a key added here is one both know.
extension ScenarioObject {
  /// The app's model (`model`).
  static let model = ScenarioObject(
    name: "model",
    members: [
      (
        "version",
        ##"{"type": "integer", "description": "the model version ([CDModel]'s version-attribute strategy: older apps fetch only records of their version or older)", "minimum": 1, "default": 1}"##
      ),
      (
        "simulateRejection",
        ##"{"type": "boolean", "description": "run a model CloudKit would refuse: every syncing store's setup fails (134060)", "default": false}"##
      ),
      (
        "entities",
        ##"{"description": "the entities of the Core Data / SwiftData model", "type": "array", "minItems": 1, "items": {"$generated": "object:entity"}}"##
      ),
      (
        "configurations",
        ##"{"description": "the model's configurations: which entities each store holds, and whether it syncs", "type": "array", "items": {"$generated": "object:configuration"}}"##
      ),
    ],
    required: [],
    description: "the app's Core Data / SwiftData model: CloudKit compatibility rules, record mapping and record sizes")

  /// An entity of the model (`model.entities[i]`).
  static let entity = ScenarioObject(
    name: "entity",
    members: [
      (
        "name",
        ##"{"description": "the entity's name (its record type is CD_ followed by its root entity's name)", "type": "string"}"##
      ),
      (
        "parent",
        ##"{"type": "string", "description": "the parent entity's name (inheritance: the record type is the root's); default none. parent entity (inheritance): the record type is the root entity's [A]"}"##
      ),
      (
        "attributes",
        ##"{"description": "the entity's attributes", "type": "array", "items": {"$generated": "object:attribute"}}"##
      ),
      (
        "relationships",
        ##"{"description": "the entity's relationships", "type": "array", "items": {"$generated": "object:relationship"}}"##
      ),
      (
        "uniqueConstraints",
        ##"{"type": "array", "items": {"type": "array", "items": {"type": "string"}}, "description": "lists of attribute names that must be unique together (CloudKit refuses them); default none. not supported by CloudKit [A]"}"##
      ),
      (
        "manyToManyLinks",
        ##"{"type": "integer", "description": "shorthand: anonymous many-to-many links per new object (CDMR records)", "minimum": 0, "default": 0}"##
      ),
    ],
    required: ["name"],
    description: nil)

  /// An attribute of an entity (`model.entities[i].attributes[j]`).
  static let attribute = ScenarioObject(
    name: "attribute",
    members: [
      (
        "name", ##"{"description": "the attribute's name (its record field is CD_ followed by it)", "type": "string"}"##
      ),
      (
        "type",
        ##"{"enum": ["integer16", "integer32", "integer64", "decimal", "double", "float", "string", "boolean", "date", "binary", "uuid", "uri", "transformable", "undefined", "objectID", "Int", "Int16", "Int32", "Int64", "Decimal", "Double", "Float", "String", "Bool", "Date", "Data", "UUID", "URL"], "default": "string", "description": "a Core Data type, or the Swift type of a SwiftData property"}"##
      ),
      ("optional", ##"{"type": "boolean", "description": "[A] must be optional or have a default", "default": true}"##),
      ("default", ##"{"description": "a default value (any JSON)"}"##),
      (
        "bytes",
        ##"{"type": "integer", "description": "typical size of a value in bytes; default by type [assumed]. typical size; over 750 KB string/binary/transformable values become assets [W] WWDC19", "minimum": 0}"##
      ),
      (
        "maxBytes",
        ##"{"type": "integer", "description": "largest size of a value in bytes; default: bytes. largest size (the 700 KB rule)", "minimum": 0}"##
      ),
      (
        "unique",
        ##"{"type": "boolean", "description": "@Attribute(.unique): not supported by CloudKit", "default": false}"##
      ),
      (
        "options",
        ##"{"type": "array", "items": {"enum": ["unique", "externalStorage", "transformable"]}, "description": "SwiftData @Attribute options: unique, externalStorage, transformable; default none. SwiftData @Attribute options"}"##
      ),
    ],
    required: ["name"],
    description: nil)

  /// A relationship of an entity (`model.entities[i].relationships[j]`).
  static let relationship = ScenarioObject(
    name: "relationship",
    members: [
      ("name", ##"{"description": "the relationship's name", "type": "string"}"##),
      ("destination", ##"{"description": "the name of the entity it points to", "type": "string"}"##),
      ("toMany", ##"{"type": "boolean", "description": "", "default": false}"##),
      ("optional", ##"{"type": "boolean", "description": "[A] must be optional", "default": true}"##),
      ("inverse", ##"{"type": "string", "description": "[A] required: records can arrive out of order"}"##),
      ("ordered", ##"{"type": "boolean", "description": "[RE] not supported", "default": false}"##),
      (
        "deleteRule",
        ##"{"enum": ["nullify", "cascade", "deny", "noAction"], "default": "nullify", "description": "[A] Deny is not supported"}"##
      ),
    ],
    required: ["name", "destination"],
    description: nil)

  /// A configuration of the model (`model.configurations[i]`).
  static let configuration = ScenarioObject(
    name: "configuration",
    members: [
      ("name", ##"{"description": "the configuration's name", "type": "string"}"##),
      (
        "entities",
        ##"{"description": "names of the entities in this configuration", "type": "array", "items": {"type": "string"}}"##
      ),
      ("syncs", ##"{"type": "boolean", "description": "a local-only configuration never syncs", "default": true}"##),
    ],
    required: ["name", "entities"],
    description: nil)

  /// A timeline entry (`timeline[i]`): when, on which devices, and the action.
  static let timelineEntry = ScenarioObject(
    name: "timelineEntry",
    members: [
      (
        "at",
        ##"{"description": "when the action happens: a duration from the start of the run, or with start a clock time (\"23:00\", its next occurrence at or after the start: a clock time equal to start is the start)", "anyOf": [{"$ref": "#/$defs/duration"}, {"type": "string", "pattern": "^[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?$"}]}"##
      ),
      (
        "devices",
        ##"{"description": "the devices it acts on: a name, a group, \"all\" or a list (required). a device name, a group name (all its members), \"all\", or a list of these", "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}"##
      ),
      ("action", ##"{"$generated": "actions"}"##),
      (
        "watch",
        ##"{"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$", "description": "name this edit (an edit, bulkInsert or bulkDelete on one device): its arrival becomes the metrics watch.<name>.latency, .firstVisible, .visibleOn and .editedAt, which sweep, compare and report carry like any other"}"##
      ),
    ],
    required: ["at", "devices", "action"],
    description: nil)

  /// A parameter sweep (`sweep`).
  static let sweep = ScenarioObject(
    name: "sweep",
    members: [
      (
        "factors",
        ##"{"description": "the factors: each a JSON path in the scenario and the values it takes", "type": "array", "items": {"$generated": "object:sweepFactor"}}"##
      ),
      (
        "title",
        ##"{"type": "string", "description": "the sweep report's title (default: the scenario's name); datapackage.json gives it as the package's title"}"##
      ),
      (
        "exclude",
        ##"{"description": "combinations to skip: objects of path: value, every listed factor having that value", "type": "array", "items": {"type": "object", "description": "path: value pairs; a combination matching all of them is skipped"}}"##
      ),
      (
        "seeds",
        ##"{"description": "replications: a list, \"1..30\", or {\"from\": 1, \"count\": 30}", "oneOf": [{"type": "array", "items": {"type": "integer", "minimum": 0}}, {"type": "string"}, {"$generated": "object:seedRange"}]}"##
      ),
    ],
    required: [],
    description: "a parameter sweep for syncsim sweep (run ignores it)")

  /// A sweep's factor (`sweep.factors[i]`).
  static let sweepFactor = ScenarioObject(
    name: "sweepFactor",
    members: [
      (
        "path",
        ##"{"type": "string", "description": "JSON path of the field, e.g. push.dropProbability or devices[1].power.battery"}"##
      ),
      ("values", ##"{"type": "array", "minItems": 1, "description": "the values the field takes"}"##),
      (
        "zip",
        ##"{"type": "string", "description": "factors with the same zip name step together instead of being crossed"}"##
      ),
      (
        "label",
        ##"{"type": "string", "description": "the factor's name in the report's axes and legends (default: its path); datapackage.json gives it as the column's title"}"##
      ),
      (
        "scale",
        ##"{"enum": ["linear", "log"], "description": "the report's x axis when this factor is on it (default: log where the values span two decades); log needs values above 0"}"##
      ),
    ],
    required: ["path", "values"],
    description: nil)

  /// A sweep's seeds as a range (`sweep.seeds`: `{"from": 1, "count": 30}`).
  static let seedRange = ScenarioObject(
    name: "seedRange",
    members: [
      ("from", ##"{"description": "the first seed", "type": "integer", "minimum": 0}"##),
      ("count", ##"{"description": "how many seeds, consecutive from `from`", "type": "integer", "minimum": 1}"##),
    ],
    required: ["from", "count"],
    description: nil)

  /// A device or a group of devices (`devices[i]`): the keys read by hand here, then every
  /// device key `ParameterTable` declares (`withDeviceParameters`).
  static let device = ScenarioObject(
    name: "device",
    members: [
      (
        "name",
        ##"{"type": "string", "description": "unique name, not \"all\", no \"#\"; group members are name#0 … name#N-1 (required). unique; not \"all\", no '#'"}"##
      ),
      (
        "count",
        ##"{"type": "integer", "description": "devices in the group (1,000,000 in all; 10,000,000 in a world run in shards)", "minimum": 1, "maximum": 10000000, "default": 1}"##
      ),
      (
        "account",
        ##"{"description": "account index, or \"perDevice\" (member k signs in to account k)", "default": 0, "oneOf": [{"type": "integer", "minimum": 0}, {"const": "perDevice"}]}"##
      ),
      (
        "stores",
        ##"{"type": "array", "default": ["private"], "description": "the stores and the databases they mirror", "items": {"oneOf": [{"enum": ["private", "public", "localOnly"]}, {"$generated": "object:sharedStore"}]}}"##
      ),
      (
        "savePolicy",
        ##"{"description": "when the context saves [A] immediate; [HowTo] for onBackground", "default": "immediate", "oneOf": [{"enum": ["immediate", "onBackground"]}, {"$generated": "object:saveDebounce"}, {"$generated": "object:saveInterval"}]}"##
      ),
      (
        "uiRefresh",
        ##"{"description": "how imports become visible: fetchedResults [A], reloadOnImportEvent with a debounce ([HowTo], ~5 s [C]), onLaunch", "default": "fetchedResults", "oneOf": [{"enum": ["fetchedResults", "reloadOnImportEvent", "onLaunch"]}, {"$generated": "object:reloadOnImport"}]}"##
      ),
      (
        "modelVersion",
        ##"{"type": "integer", "description": "the model version this group's app runs (default model.version)", "minimum": 1}"##
      ),
    ],
    required: ["name"],
    description: nil,
    withDeviceParameters: true)

  /// A scenario's top level: its keys (the schema's header is `ScenarioSchemaTemplate`).
  static let scenario = ScenarioObject(
    name: "scenario",
    members: [
      (
        "$schema",
        ##"{"type": "string", "description": "the schema for editors, e.g. \"schema.json\" (a path relative to the scenario) or the output of `syncsim schema`; ignored by SyncSim"}"##
      ),
      (
        "version",
        ##"{"type": "integer", "description": "the format's version: 1 (required). format version; read first, newer versions are rejected", "minimum": 1, "maximum": 1}"##
      ),
      (
        "name",
        ##"{"type": "string", "description": "names the results folder Results/<name>/", "default": "scenario"}"##
      ),
      (
        "description",
        ##"{"type": "string", "description": "what the scenario shows and the source it reproduces. what the scenario shows and the source it reproduces", "default": ""}"##
      ),
      (
        "seed", ##"{"type": "integer", "description": "root seed of every random stream", "minimum": 0, "default": 1}"##
      ),
      ("duration", ##"{"$ref": "#/$defs/duration", "description": "simulated time", "default": "1h"}"##),
      (
        "environment",
        ##"{"enum": ["development", "production"], "description": "sets polling.interval: development 30 min, production 24 h; when absent, polling.interval's default (30 min). sets the public-database poll interval: 30 min in development, 24 h in production [A] TN3164"}"##
      ),
      (
        "accounts",
        ##"{"type": "integer", "description": "number of iCloud accounts (at least one more than the highest account a device uses)", "minimum": 1, "default": 1}"##
      ),
      (
        "devices",
        ##"{"type": "array", "minItems": 1, "description": "the devices, each a device or a group of `count` devices (required). device groups; a group with count > 1 has members name#0, name#1, ...", "items": {"$generated": "object:device"}}"##
      ),
      ("model", ##"{"$generated": "object:model"}"##),
      ("cloud", ##"{"$parameters": "cloud"}"##),
      ("push", ##"{"$parameters": "push"}"##),
      ("polling", ##"{"$parameters": "polling"}"##),
      ("scheduler", ##"{"$parameters": "scheduler"}"##),
      ("workloads", ##"{"$generated": "workloads"}"##),
      ("usage", ##"{"$generated": "usage"}"##),
      (
        "timeline",
        ##"{"description": "actions at given times: network, power, app state, edits, bulk inserts, failures", "type": "array", "items": {"$generated": "object:timelineEntry"}}"##
      ),
      ("expect", ##"{"$generated": "expect"}"##),
      (
        "watch",
        ##"{"type": "object", "description": "writes to follow by name: each name's metrics are watch.<name>.latency (until every other device showed it), .firstVisible, .visibleOn and .editedAt. A write is picked by its device and time, never its number (a swept parameter renumbers writes)", "propertyNames": {"pattern": "^[A-Za-z0-9_-]{1,64}$"}, "additionalProperties": {"type": "object", "properties": {"device": {"type": "string", "description": "the device that makes the write"}, "at": {"description": "its first write at or after this time (a duration, or with start a clock time)", "anyOf": [{"$ref": "#/$defs/duration"}, {"type": "string", "pattern": "^[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?$"}]}, "last": {"type": "boolean", "description": "its last write of the run"}}, "required": ["device"], "additionalProperties": false}}"##
      ),
      (
        "start",
        ##"{"type": "string", "description": "the time of day at the run's start, \"22:00\" or \"2026-03-02T22:00\" (the date is for the reader): timeline entries may then say \"at\": \"23:00\" (the next such time), usage may follow byHour, and timeline.csv gains a clock column", "pattern": "^([0-9]+-[0-9]+-[0-9]+T)?[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?$"}"##
      ),
      (
        "sampleInterval",
        ##"{"$ref": "#/$defs/duration", "description": "timeline.csv sampling interval; default about 200 samples"}"##
      ),
      ("sweep", ##"{"$generated": "object:sweep"}"##),
      (
        "outputs",
        ##"{"type": "array", "items": {"enum": ["summary", "latency", "activities", "timeline", "objects"]}, "description": "result files to write; default summary, latency, activities and timeline (summary is always written); objects (objects.csv: every store's objects at the end) only when named"}"##
      ),
      ("tolerances", ##"{"$generated": "tolerances"}"##),
    ],
    required: ["version", "devices"],
    description: nil)

  /// A shared zone's accounts (`devices[i].stores[j].shared`).
  static let share = ScenarioObject(
    name: "share",
    members: [
      (
        "owner",
        ##"{"description": "index of the account that owns the share (from 0)", "type": "integer", "minimum": 0}"##
      ),
      (
        "participants",
        ##"{"description": "indices of the accounts the share is shared with", "type": "array", "items": {"type": "integer", "minimum": 0}}"##
      ),
    ],
    required: ["owner"],
    description: "a zone shared through CKShare: its owner's account and the participants' accounts")

  /// A store in a shared zone (`devices[i].stores[j]` as an object).
  static let sharedStore = ScenarioObject(
    name: "sharedStore",
    members: [
      ("shared", ##"{"$generated": "object:share"}"##)
    ],
    required: ["shared"],
    description: nil)

  /// A save policy that saves a while after the last edit (`savePolicy: {"debounce": ...}`).
  static let saveDebounce = ScenarioObject(
    name: "saveDebounce",
    members: [
      (
        "debounce",
        ##"{"description": "save this long after the last edit (a duration) [assumed] 2 s", "$ref": "#/$defs/duration"}"##
      )
    ],
    required: ["debounce"],
    description: nil)

  /// A save policy that saves on a clock (`savePolicy: {"interval": ...}`).
  static let saveInterval = ScenarioObject(
    name: "saveInterval",
    members: [
      (
        "interval",
        ##"{"description": "save every this long while there are unsaved edits (a duration)", "$ref": "#/$defs/duration"}"##
      )
    ],
    required: ["interval"],
    description: nil)

  /// A UI refresh that reloads after an import event (`uiRefresh: {"reloadOnImportEvent": ...}`).
  static let reloadOnImport = ScenarioObject(
    name: "reloadOnImport",
    members: [
      (
        "reloadOnImportEvent",
        ##"{"description": "reload the view this long after an import event (debounce, a duration); [C] [HowTo]: ~5 s", "$ref": "#/$defs/duration"}"##
      )
    ],
    required: ["reloadOnImportEvent"],
    description: nil)
}
