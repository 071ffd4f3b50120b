import SimKernel
import Testing

@testable import SimCLI

/// Commands are parse → validate → run; the parts are tested on their own.
@Suite struct CommandPartsTests {
  @Test func runParsesItsOptionsAndRefusesMalformedOnes() throws {
    var args = ArgumentList(["s.json", "--seed", "7", "--duration", "2h", "--trace"])
    let options = try RunCommand.parse(&args)
    #expect(options.file == "s.json" && options.seed == 7 && options.trace && options.out == nil)
    #expect(options.duration == .seconds(7200))
    for bad in [["s.json", "--seed", "-1"], ["s.json", "--duration", "0s"], ["a.json", "b.json"], []] {
      var args = ArgumentList(bad)
      #expect(throws: UsageError.self) { try RunCommand.parse(&args) }
    }
  }

  @Test func sweepParsesShardsAndJobs() throws {
    var args = ArgumentList(["s.json", "--shard", "2/3", "--jobs", "4", "--set", "push.dropProbability=0,0.5"])
    let options = try SweepCommand.parse(&args)
    #expect(options.shard?.index == 2 && options.shard?.count == 3 && options.jobs == 4)
    #expect(options.sets == ["push.dropProbability=0,0.5"])
    for bad in ["0/3", "4/3", "1/0", "x"] {
      #expect(throws: UsageError.self) { try SweepCommand.parseShard(bad) }
    }
  }

  @Test func mergeReadsTheManifestSweepWrites() throws {
    let text = SweepCommandLine.manifest(shard: (2, 5), total: 40, factors: ["push.dropProbability", "seed"])
    let manifest = try #require(MergeCommand.parseManifest(text))
    #expect(manifest.index == 2 && manifest.count == 5 && manifest.total == 40)
    #expect(manifest.factors == "push.dropProbability,seed")
    #expect(MergeCommand.parseManifest("shard 2\nruns x\n") == nil)
  }
}
