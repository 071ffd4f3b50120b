import Foundation
import SimCLI
import SimExperiments
import SimMetrics
import SimModel
import SimScenario
import SimTestSupport
import Testing

@Suite struct DataModelTests {
  /// A clean model: posts with tags (many-to-many), an author (to-one with inverse), a subentity.
  static let clean = #"""
    {"entities": [
      {"name": "Post", "attributes": [{"name": "title", "type": "String"}, {"name": "photo", "type": "Data", "bytes": 2000000},
                                      {"name": "likes", "type": "Int", "optional": false, "default": 0}],
       "relationships": [{"name": "tags", "destination": "Tag", "toMany": true, "inverse": "posts"},
                         {"name": "author", "destination": "Author", "inverse": "posts"}]},
      {"name": "ImagePost", "parent": "Post", "attributes": [{"name": "width", "type": "integer32"}]},
      {"name": "Tag", "attributes": [{"name": "label"}], "relationships": [{"name": "posts", "destination": "Post", "toMany": true, "inverse": "tags"}]},
      {"name": "Author", "attributes": [{"name": "name"}], "relationships": [{"name": "posts", "destination": "Post", "toMany": true, "inverse": "author"}]}
    ]}
    """#

  func problems(model: String, extraDevices: String = "") -> [ScenarioProblem] {
    let text =
      #"{"version": 1, "devices": [{"name": "a"}, {"name": "b"}"# + extraDevices + #"], "model": "# + model + "}"
    do {
      let (_, warnings) = try ScenarioDecoder.decode(Array(text.utf8), file: "m.json")
      return warnings
    } catch {
      return error.problems
    }
  }

  func errors(_ model: String) -> [String] {
    problems(model: model).filter { $0.severity == .error }.map(\.description)
  }

  @Test func aCleanModelPasses() {
    #expect(errors(Self.clean).isEmpty)
  }

  /// Each case breaks exactly one rule of the clean model; exactly one error names that rule.
  @Test(arguments: [
    (
      "\"name\": \"likes\", \"type\": \"Int\", \"optional\": false, \"default\": 0",
      "\"name\": \"likes\", \"type\": \"Int\", \"optional\": false",
      "m.json: model.entities[0].attributes[2].optional: every attribute must be optional or have a default value"
    ),
    (
      "\"name\": \"title\", \"type\": \"String\"", "\"name\": \"title\", \"type\": \"String\", \"unique\": true",
      "m.json: model.entities[0].attributes[0].unique: unique attributes (@Attribute(.unique)) aren't supported"
    ),
    (
      "\"name\": \"title\", \"type\": \"String\"",
      "\"name\": \"title\", \"type\": \"String\", \"options\": [\"unique\"]",
      "m.json: model.entities[0].attributes[0].unique: unique attributes"
    ),
    (
      "{\"name\": \"ImagePost\", \"parent\": \"Post\",",
      "{\"name\": \"ImagePost\", \"parent\": \"Post\", \"uniqueConstraints\": [[\"width\"]],",
      "m.json: model.entities[1].uniqueConstraints: unique constraints aren't supported"
    ),
    (
      "\"name\": \"width\", \"type\": \"integer32\"", "\"name\": \"width\", \"type\": \"undefined\"",
      "m.json: model.entities[1].attributes[0].type: undefined attributes aren't supported"
    ),
    (
      "\"name\": \"width\", \"type\": \"integer32\"", "\"name\": \"width\", \"type\": \"objectID\"",
      "m.json: model.entities[1].attributes[0].type: objectID attributes aren't supported"
    ),
    (
      "{\"name\": \"author\", \"destination\": \"Author\", \"inverse\": \"posts\"}",
      "{\"name\": \"author\", \"destination\": \"Author\", \"inverse\": \"posts\", \"optional\": false}",
      "m.json: model.entities[0].relationships[1].optional: every relationship must be optional"
    ),
    (
      "{\"name\": \"author\", \"destination\": \"Author\", \"inverse\": \"posts\"}",
      "{\"name\": \"author\", \"destination\": \"Author\"}",
      "m.json: model.entities[0].relationships[1]: every relationship must have an inverse [A [CDModel]]: records can arrive out of order; without an inverse the relationship can't be repaired"
    ),
    (
      "\"toMany\": true, \"inverse\": \"tags\"}", "\"toMany\": true, \"inverse\": \"tags\", \"ordered\": true}",
      "m.json: model.entities[2].relationships[0].ordered: ordered relationships aren't supported"
    ),
    (
      "{\"name\": \"author\", \"destination\": \"Author\", \"inverse\": \"posts\"}",
      "{\"name\": \"author\", \"destination\": \"Author\", \"inverse\": \"posts\", \"deleteRule\": \"deny\"}",
      "m.json: model.entities[0].relationships[1].deleteRule: the Deny delete rule isn't supported"
    ),
    (
      "{\"name\": \"Author\", \"attributes\": [{\"name\": \"name\"}]",
      "{\"name\": \"Author\", \"attributes\": [{\"name\": \"name\", \"type\": \"decimal\", \"bytes\": 800000}]",
      "m.json: model.entities[3]: an entity must fit in 700,000 bytes"
    ),
  ])
  func eachRuleIsReportedWithItsPathConsequenceAndFix(_ original: String, _ broken: String, _ expected: String) {
    #expect(Self.clean.contains(original))
    let found = errors(Self.clean.replacingOccurrences(of: original, with: broken))
    #expect(found.count == 1, "\(found)")
    #expect(found.first?.hasPrefix(expected) == true, "\(found)")
    #expect(found.first?.contains("(") == true, "a fix is given")
  }

  @Test func relationshipsAcrossConfigurationsAreRefused() {
    let model =
      String(Self.clean.dropLast(2))
      + #"], "configurations": [{"name": "Cloud", "entities": ["Post", "ImagePost", "Tag"]}, {"name": "Local", "entities": ["Author"], "syncs": false}]}"#
    let found = errors(model)
    #expect(found.count == 2)  // Post.author → Author, and Author.posts → Post
    #expect(found.allSatisfy { $0.contains("no relationships across configurations") })
  }

  @Test func entitiesOfALocalOnlyConfigurationNeverSync() throws {
    let text = #"""
      {"version": 1, "devices": [{"name": "a"}, {"name": "b"}],
       "model": {"entities": [{"name": "Note"}, {"name": "Draft"}],
                 "configurations": [{"name": "Cloud", "entities": ["Note"]}, {"name": "Local", "entities": ["Draft"], "syncs": false}]},
       "timeline": [{"at": "1m", "devices": "a", "action": {"edit": {"kind": "insert", "entity": "Draft"}}},
                    {"at": "2m", "devices": "a", "action": {"edit": {"kind": "insert", "entity": "Note"}}}]}
      """#
    let (scenario, _) = try ScenarioDecoder.decode(Array(text.utf8), file: "c.json")
    let report = ScenarioRunner.run(scenario)
    #expect(report.summary.value("localEdits") == 1)
    #expect(report.summary.value("writes") == 1)
    #expect(report.summary.value("recordsUp") == 1)
    #expect(RecordMapping.recordTypes(scenario.dataModel).map(\.name) == ["CD_Note"])
  }

  @Test func aRecordTypeHasAtMost256Fields() {
    let attributes = (0..<128).map { #"{"name": "f\#($0)", "type": "Int"}"# }.joined(separator: ", ")
    let wide =
      #"{"entities": [{"name": "Wide", "attributes": ["# + attributes
      + "]}, {\"name\": \"Wider\", \"parent\": \"Wide\", \"attributes\": ["
      + (0..<128).map { #"{"name": "g\#($0)", "type": "Int"}"# }.joined(separator: ", ") + "]}]}"
    let found = errors(wide)
    #expect(found.count == 1)
    #expect(found.first?.contains("a record type has at most 256 fields [A TN3164]: CD_Wide would have 257") == true)
  }

  @Test func moreThanAThousandZonesAreRefused() {
    let devices = (0..<1001).map {
      #", {"name": "s\#($0)", "stores": [{"shared": {"owner": 0, "participants": [\#($0 % 2 + 1), \#($0)]}}], "account": 0}"#
    }.joined()
    let found = problems(model: Self.clean, extraDevices: devices).filter { $0.severity == .error }.map(\.description)
    #expect(found.contains { $0.contains("a database has at most 1,000 record zones [A TN3164]: account 0") }, "\(found)")
  }

  @Test func recordMappingSizesAssetsAndJoinRecords() {
    let post = DataModelTests.entity("Post")
    // 2 MB photo → asset; the record keeps title (32 B), likes (8 B) and 300 B of overhead.
    let size = post.recordSize(overhead: 300, assetThreshold: 750_000, maxRecordBytes: 1_000_000)
    #expect(size.record == 340)
    #expect(size.assets == 2_000_000)
    #expect(post.manyToManyLinksPerObject == 1)
    #expect(post.recordType == "CD_Post")
    #expect(DataModelTests.entity("ImagePost").recordType == "CD_Post")
    #expect(DataModelTests.entity("ImagePost").attributeBytes == [32, 2_000_000, 8, 4])
    // Three 400 KB strings make a 1.2 MB record: the largest eligible field moves to an asset.
    let heavy = EntityDescription(
      name: "Heavy", attributeBytes: [400_000, 400_001, 400_000, 8], assetEligible: [true, true, true, false])
    let heavySize = heavy.recordSize(overhead: 300, assetThreshold: 750_000, maxRecordBytes: 1_000_000)
    #expect(heavySize.assets == 400_001)
    #expect(heavySize.record == 300 + 800_008)
  }

  static func entity(_ name: String) -> EntityDescription {
    let text = #"{"version": 1, "devices": [{"name": "a"}], "model": "# + clean + "}"
    let scenario = try! ScenarioDecoder.decode(Array(text.utf8), file: "m.json").0
    return scenario.spec.entities.first { $0.name == name }!
  }

  @Test func manyToManyLinksUploadACDMRRecordEach() throws {
    let text =
      #"{"version": 1, "devices": [{"name": "a"}, {"name": "b"}], "model": "# + Self.clean
      + #", "timeline": [{"at": "1m", "devices": "a", "action": {"bulkInsert": {"count": 10, "entity": "Post"}}}]}"#
    let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "m.json").0
    let report = ScenarioRunner.run(scenario)
    // 10 posts and 10 CDMR join records; 10 × 2 MB of photo assets.
    #expect(report.summary.value("recordsUp") == 20)
    #expect(report.summary.value("bytesUp")! > 20_000_000)
  }

  func diff(_ old: String, _ new: String) throws -> [SchemaDiff.Change] {
    func model(_ text: String) throws -> DataModel {
      try ScenarioDecoder.decode(
        Array((#"{"version": 1, "devices": [{"name": "a"}], "model": "# + text + "}").utf8), file: "m.json"
      ).0.dataModel
    }
    return SchemaDiff.compare(old: try model(old), new: try model(new))
  }

  @Test func productionSchemaChangesAreAddOnly() throws {
    let added = try diff(
      Self.clean,
      Self.clean.replacingOccurrences(
        of: #"{"name": "label"}"#, with: #"{"name": "label"}, {"name": "color", "type": "Int"}"#))
    #expect(added.count == 1 && added[0].allowed && added[0].message.contains("CD_Tag.CD_color (Int(64)) added"))
    let deletedField = try diff(
      Self.clean,
      Self.clean.replacingOccurrences(
        of: #"{"name": "likes", "type": "Int", "optional": false, "default": 0}"#,
        with: #"{"name": "posted", "type": "Date"}"#))
    #expect(deletedField.map(\.allowed) == [false, true])
    #expect(deletedField[0].message.hasPrefix("field CD_Post.CD_likes deleted"))
    let renamed = try diff(
      Self.clean,
      Self.clean.replacingOccurrences(
        of: #"{"name": "width", "type": "integer32"}"#, with: #"{"name": "pixelWidth", "type": "integer32"}"#))
    #expect(renamed.filter { !$0.allowed }.count == 1)
    #expect(
      renamed.first { !$0.allowed }!.message.contains("renamed to CD_pixelWidth? A rename is a delete plus an add"))
    let retyped = try diff(
      Self.clean,
      Self.clean.replacingOccurrences(
        of: #"{"name": "width", "type": "integer32"}"#, with: #"{"name": "width", "type": "double"}"#))
    #expect(retyped.map(\.allowed) == [false])
    #expect(retyped[0].message.contains("changed type Int(64) → Double"))
    let deletedType = try diff(
      Self.clean,
      Self.clean.replacingOccurrences(
        of:
          #"{"name": "Author", "attributes": [{"name": "name"}], "relationships": [{"name": "posts", "destination": "Post", "toMany": true, "inverse": "author"}]}"#,
        with:
          #"{"name": "Author2", "attributes": [{"name": "name"}], "relationships": [{"name": "posts", "destination": "Post", "toMany": true, "inverse": "author"}]}"#
      ).replacingOccurrences(of: #""destination": "Author""#, with: #""destination": "Author2""#))
    #expect(deletedType.contains { !$0.allowed && $0.message.hasPrefix("record type CD_Author deleted") })
  }

  @Test func schemaCommandsPrintRecordsAndRefuseForbiddenDiffs() throws {
    try withTemporaryDirectory { directory in
      let old = directory + "/old.json", new = directory + "/new.json"
      try (#"{"version": 1, "devices": [{"name": "a"}], "model": "# + Self.clean + "}").write(
        toFile: old, atomically: true, encoding: .utf8)
      try
        (#"{"version": 1, "devices": [{"name": "a"}], "model": "#
        + Self.clean.replacingOccurrences(
          of: #"{"name": "width", "type": "integer32"}"#, with: #"{"name": "width", "type": "double"}"#) + "}")
        .write(toFile: new, atomically: true, encoding: .utf8)
      let records = syncsim("schema", "records", old)
      #expect(records.code == 0)
      #expect(records.out.contains("CD_Post   (8 fields; entities: Post, ImagePost)"))
      #expect(records.out.contains("CD_photo_ckAsset  Asset"))
      #expect(records.out.contains("CDMR   (3 fields; many-to-many join records)"))
      let same = syncsim("schema", "diff", old, old)
      #expect(same.code == 0 && same.out.contains("no schema changes"))
      let changed = syncsim("schema", "diff", old, new)
      #expect(changed.code == 65)
      #expect(changed.out.contains("error  field CD_Post.CD_width changed type"))
    }
  }

  @Test func aModelCloudKitRefusesRunsOnlyWhenTheScenarioSimulatesTheRefusal() throws {
    let broken = Self.clean.replacingOccurrences(
      of: #"{"name": "author", "destination": "Author", "inverse": "posts"}"#,
      with: #"{"name": "author", "destination": "Author"}"#)
    let text =
      #"{"version": 1, "devices": [{"name": "a"}, {"name": "b"}], "workloads": [{"devices": "all", "editsPerHour": 10}], "model": "#
    #expect(throws: ScenarioProblems.self) {
      try ScenarioDecoder.decode(Array((text + broken + "}").utf8), file: "m.json")
    }
    let simulated = String(broken.dropLast()) + #", "simulateRejection": true}"#
    let (scenario, warnings) = try ScenarioDecoder.decode(Array((text + simulated + "}").utf8), file: "m.json")
    #expect(warnings.contains { $0.message.contains("(simulated: the store's setup fails)") })
    let report = ScenarioRunner.run(scenario)
    #expect(report.summary.value("setupFailures") == 2)
    #expect(report.summary.value("rowsVisible") == 0)
    #expect(report.summary.value("requestsUp") == 0)
  }

  @Test func olderModelVersionsMissExactlyTheRecordsOfNewerOnes() throws {
    let text = #"""
      {"version": 1, "duration": "2h",
       "model": {"version": 2, "entities": [{"name": "Note"}]},
       "devices": [{"name": "old", "count": 2, "modelVersion": 1}, {"name": "new", "count": 2}],
       "timeline": [
         {"at": "1m", "devices": "old#0", "action": {"bulkInsert": {"count": 5, "entity": "Note"}}},
         {"at": "2m", "devices": "new#0", "action": {"bulkInsert": {"count": 7, "entity": "Note"}}}
       ]}
      """#
    let (scenario, _) = try ScenarioDecoder.decode(Array(text.utf8), file: "v.json")
    let report = ScenarioRunner.run(scenario)
    // The 7 notes of version 2 are hidden from both old devices; the 5 of version 1 reach everyone.
    #expect(report.summary.value("recordsHidden") == 14)
    #expect(report.summary.value("rowsHidden") == 14)
    let visibleOnOld = report.rows.filter { $0.observer.index < 2 && $0.outcome == .visible }
    #expect(visibleOnOld.count == 5)  // old#0's 5 notes seen by old#1
    #expect(report.rows.filter { $0.observer.index >= 2 && $0.outcome == .visible }.count == 5 * 2 + 7)
  }
}
