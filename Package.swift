// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "GallerySync",
    products: [
        .library(name: "GalleryModel", targets: ["GalleryModel"]),
        .executable(name: "gallery", targets: ["gallery"]),
        .executable(name: "gallery-bench", targets: ["gallery-bench"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "GalleryModel"),
        .executableTarget(name: "gallery", dependencies: ["GalleryModel"]),
        .executableTarget(name: "gallery-bench", dependencies: ["GalleryModel"]),
        .testTarget(name: "GalleryModelTests", dependencies: ["GalleryModel"]),
        .testTarget(name: "EndToEndTests", dependencies: ["gallery"]),
    ],
    swiftLanguageModes: [.v6]
)
