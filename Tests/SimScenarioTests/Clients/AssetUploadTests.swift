import Foundation
import SimTestSupport
import Testing

/// Asset uploads (issue 56, item 6): Core Data's exporter cuts batches at 400 items and 1.5 MiB of
/// `CKRecord.size`, which leaves asset files out ([RE]), so a batch of large assets is one request
/// of gigabytes; `cloud.assetBytesPerOperation` cuts batches on asset bytes too.
@Suite struct AssetUploadTests {
  static func run(_ edits: [(String, String)]) throws -> WorldRun {
    try WorldRun(library: "asset-batch-upload", edits: edits)
  }

  static func latencies(_ run: WorldRun) throws -> [Double] {
    try run.table("latency.csv").rows.compactMap { $0.number("latency") }.sorted()
  }

  @Test func assetsDoNotCutCoreDatasBatchesUnlessALimitIsSet() throws {
    do {
      // 100 photos of 5 MB (the library's 400 cut for a debug build's time): 500 MB.
      let fewer = [(#""count": 400"#, #""count": 100"#)]
      let whole = try Self.run(fewer)
      #expect(whole.code == 1)  // the library's p50 of 3 min is 400 photos'
      #expect(try whole.summary("requestsUp") == 1)
      #expect(try #require(try whole.summary("bytesUp")) > 500_000_000)
      let cut = try Self.run(
        fewer + [(#""seed": 13,"#, #""seed": 13, "cloud": {"assetBytesPerOperation": 50000000},"#)])
      #expect(try cut.summary("requestsUp") == 10)
      let wholeLatencies = try Self.latencies(whole)
      let cutLatencies = try Self.latencies(cut)
      #expect(wholeLatencies.count == 100 && cutLatencies.count == 100)
      // One request of 500 MB at 10 MB/s: 50 s before any photo shows; ten requests of 50 MB:
      // the first ten after about 5 s.
      #expect(try #require(wholeLatencies.first) > 50)
      #expect(try #require(cutLatencies.first) < 15)
      #expect(abs(try #require(cutLatencies.last) - (try #require(wholeLatencies.last))) < 30)
    }
  }

  @Test func anAttributeOverFiftyMegabytesDrawsAWarning() throws {
    try withTemporaryDirectory { folder in
      // The warning is the command's (stderr): run through it.
      let run = try ScenarioRun(
        library: "asset-batch-upload",
        edits: [(#""bytes": 5000000"#, #""bytes": 60000000"#), (#""count": 400"#, #""count": 2"#)], named: "huge",
        in: folder)
      #expect(run.err.contains("model.entities[0].attributes[1].bytes"), "\(run.err)")
      #expect(run.err.contains("over the 50 MB"), "\(run.err)")
    }
  }
}
