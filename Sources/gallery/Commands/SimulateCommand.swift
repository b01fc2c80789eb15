import Foundation
import GallerySimulation
import GalleryModel

/// `gallery simulate FILE`: replays a schedule and prints the outcome as JSON.
struct SimulateCommand {
    let arguments: [String]

    func run() throws(CommandFailure) -> String {
        guard arguments.count == 1, let path = arguments.first, path == "-" || !path.hasPrefix("-") else {
            throw .usage(arguments.isEmpty ? "simulate needs a FILE" : "simulate takes one FILE", Usage.simulate)
        }
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw .usage("cannot read \(path)", Usage.simulate)
            }
            data = contents
        }
        do {
            return try Simulator.run(Schedule(json: data)).json
        } catch {
            throw .usage(error.localizedDescription, Usage.simulate)
        }
    }
}
