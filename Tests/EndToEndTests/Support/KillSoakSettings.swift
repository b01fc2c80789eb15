import Foundation

/// The seed and round counts of the kill -9 campaign, from the environment:
/// `GALLERY_KILL_SEED` (replays a failure's random choices) and `GALLERY_SOAK_ROUNDS` (a longer soak).
struct KillSoakSettings {
    /// The seed of every random choice (commands, kill moments), printed by each test.
    let seed: UInt64
    /// Rounds of kill and restart.
    let rounds: Int

    /// The settings for a test that runs `defaultRounds` in CI, `defaultSeed` unless overridden.
    init(defaultRounds: Int, defaultSeed: UInt64) {
        let environment = ProcessInfo.processInfo.environment
        seed = environment["GALLERY_KILL_SEED"].flatMap { UInt64($0) } ?? defaultSeed
        rounds = environment["GALLERY_SOAK_ROUNDS"].flatMap { Int($0) }.map { max(1, $0) } ?? defaultRounds
    }
}
