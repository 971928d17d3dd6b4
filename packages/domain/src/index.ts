export * from "./scoring/GradeLadder.ts"
