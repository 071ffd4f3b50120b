/// The scenario schema's header: what it is, and where its parts go. Everything else is declared
/// and filled in by `ScenarioSchema`: the top level's keys and the objects below it
/// (`ScenarioObject`, whose rows the decoder reads its known keys from), the sections
/// `ParameterTable` declares (`{"$parameters": "cloud"}`), and the parts built from the policy
/// registry, the metric catalog, the timeline-action table, the arrival sections, the
/// distribution kinds and `DurationText` (`{"$generated": ...}`). `Scenarios/schema.json` is
/// `syncsim schema`'s output, never edited by hand (a test holds the two equal).
enum ScenarioSchemaTemplate {
  static let text = #"""
    {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "$id": "https://syncsim.invalid/schema/scenario-v1.json",
      "title": "SyncSim scenario, version 1",
      "description": "A scenario for SyncSim. Every field not given takes docs/specification.md's default; tags: [A] Apple docs, [W] WWDC, [RE] reverse-engineered, [C] community, [assumed] no public number.",
      "type": "object",
      "additionalProperties": false,
      "required": {
        "$generated": "required:scenario"
      },
      "$defs": {
        "duration": {
          "$generated": "duration"
        },
        "distribution": {
          "$generated": "distribution"
        }
      },
      "properties": {
        "$generated": "properties:scenario"
      }
    }
    """#
}
