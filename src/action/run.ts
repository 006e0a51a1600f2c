await import("./main.js").then(({ main }) => main());
