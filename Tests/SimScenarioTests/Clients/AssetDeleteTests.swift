import Foundation
import SimTestSupport
import Testing

/// Issue 71, item 1: deleting records that carry assets trapped a valid world. The server
/// weighed a delete as its whole record (10 deletes of 300 kB records: over 2 MB, limitExceeded),
/// and the client's split costed the first half as whole records, so the second half's bytes
/// went negative and its send time overflowed (`World.sendRequest`, SIGILL).
@Suite struct AssetDeleteTests {
  /// The library's 60 posts with a 2 MB photo asset, inserted at 1 min; `delete` deleted at 30 min.
  static func run(delete: String?, serverMaxRecords: Int? = nil) throws -> WorldRun {
    let deleteEntry = delete.map {
      #", {"at": "30m", "devices": "iphone", "action": {"bulkDelete": {"count": \#($0)}}}"#
    } ?? ""
    let cloud = serverMaxRecords.map { #", "cloud": {"serverMaxRecordsPerRequest": \#($0)}"# } ?? ""
    let text = #"""
      {"version": 1, "name": "asset-delete", "seed": 41, "duration": "2h"\#(cloud),
       "model": {"entities": [{"name": "Post", "attributes": [{"name": "title", "bytes": 80},
         {"name": "thumbnail", "bytes": 300000}, {"name": "photo", "bytes": 2000000}]}]},
       "devices": [{"name": "iphone", "network": {"uploadBytesPerSecond": 1000000}}, {"name": "ipad"}],
       "timeline": [{"at": "1m", "devices": "iphone", "action": {"bulkInsert": {"count": 60, "entity": "Post"}}}\#(deleteEntry)]}
      """#
    return try WorldRun(text)
  }

  @Test(arguments: ["10", "30", #""all""#])
  func deletingRecordsWithAssetsSendsTheirIDsInOneRequest(count: String) throws {
    let inserts = try Self.run(delete: nil)
    let deletes = try Self.run(delete: count)
    #expect(inserts.code == 0 && deletes.code == 0)
    let deleted = count == #""all""# ? 60.0 : Double(count)!
    // One request of IDs (92 bytes each), never refused as too large.
    let requests = try #require(try deletes.summary("requestsUp")) - (try #require(try inserts.summary("requestsUp")))
    let bytes = try #require(try deletes.summary("bytesUp")) - (try #require(try inserts.summary("bytesUp")))
    #expect(requests == 1)
    #expect(bytes == deleted * 92)
    #expect(try deletes.summary("rowsNotVisible") == 0)
  }

  /// A delete batch the server does refuse (a limit of 4 records) is split in halves whose bytes
  /// add up: 10 deletes refused, 5 + 5 refused, then 2 + 3 + 2 + 3 saved: 7 requests, 3 × 920 bytes.
  @Test func aRefusedBatchOfDeletesSplitsIntoHalvesOfIDs() throws {
    let inserts = try Self.run(delete: nil, serverMaxRecords: 4)
    let deletes = try Self.run(delete: "10", serverMaxRecords: 4)
    #expect(inserts.code == 0 && deletes.code == 0)
    let requests = try #require(try deletes.summary("requestsUp")) - (try #require(try inserts.summary("requestsUp")))
    let bytes = try #require(try deletes.summary("bytesUp")) - (try #require(try inserts.summary("bytesUp")))
    #expect(requests == 7)
    #expect(bytes == 3 * 920)
  }
}
