// Angular's TestBed in JIT mode (no AOT compiler in the test run), once per test file.
import '@angular/compiler';
import { getTestBed } from '@angular/core/testing';
import { BrowserTestingModule, platformBrowserTesting } from '@angular/platform-browser/testing';

let initialised = false;
export function initTestBed(): void {
  if (initialised) return;
  initialised = true;
  getTestBed().initTestEnvironment(BrowserTestingModule, platformBrowserTesting());
}
