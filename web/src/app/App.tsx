// The page map. Each feature's pages load on first visit (one chunk per feature), so the first
// page paints without the code of the others.
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import type { Permission } from '../api/types';
import { Empty, Loading, PageHeader } from '../components/ui';
import { Layout } from './Layout';
import { PageErrorBoundary, UpdatedNotice, usePreloadFailure } from './PageErrorBoundary';
import { useSession } from './session';

const page = (load: () => Promise<{ default: ComponentType }>) => lazy(load);

const OverviewPage = page(() => import('../features/overview/OverviewPage'));
const CasesPage = page(() => import('../features/cases/CasesPage'));
const CaseDetailPage = page(() => import('../features/cases/CaseDetailPage'));
const ObservationsPage = page(() => import('../features/observations/ObservationsPage'));
const DevicesPage = page(() => import('../features/devices/DevicesPage'));
const DeviceDetailPage = page(() => import('../features/devices/DeviceDetailPage'));
const TelemetryPage = page(() => import('../features/telemetry/TelemetryPage'));
const RulesPage = page(() => import('../features/rules/RulesPage'));
const CoveragePage = page(() => import('../features/coverage/CoveragePage'));
const ApiConfigurationPage = page(() => import('../features/settings/ApiConfigurationPage'));
const CollectorPage = page(() => import('../features/settings/CollectorPage'));
const AiSummariesPage = page(() => import('../features/settings/AiSummariesPage'));
const UsersPage = page(() => import('../features/users/UsersPage'));
const SecurityPage = page(() => import('../features/security/SecurityPage'));
const SingleSignOnPage = page(() => import('../features/settings/SingleSignOnPage'));
const CaseWorkPage = page(() => import('../features/settings/CaseWorkPage'));
const SsoLinkPage = page(() => import('../features/settings/SsoLinkPage'));
const WebhooksPage = page(() => import('../features/settings/WebhooksPage'));
const TenantsPage = page(() => import('../features/operator/TenantsPage'));
const ReviewsPage = page(() => import('../features/operator/ReviewsPage'));
const RetentionPage = page(() => import('../features/retention/RetentionPage'));
const RetentionOverviewPage = page(() => import('../features/retention/RetentionOverviewPage'));

/** Pages that act inside a tenant: an operator must have one picked; a permission may be needed. */
function TenantPage({ children, permission }: { children: ReactNode; permission?: Permission }) {
  const { tenant, can, me } = useSession();
  if (!tenant) {
    return (
      <Empty>
        {me.operator
          ? 'There is no tenant yet. Create one under Operator › Tenants, then pick it at the top.'
          : 'Your account belongs to no tenant.'}
      </Empty>
    );
  }
  if (permission && !can(permission)) {
    return <Empty>This page needs the permission {permission}, which your role does not have.</Empty>;
  }
  return <>{children}</>;
}

function OperatorPage({ children }: { children: ReactNode }) {
  const { me } = useSession();
  return me.operator ? <>{children}</> : <Empty>Only platform operators see this page.</Empty>;
}

function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <Empty>There is no page at this address. Use the navigation on the left.</Empty>
    </>
  );
}

export function App() {
  const location = useLocation();
  const preloadFailed = usePreloadFailure();
  if (preloadFailed) {
    return (
      <Layout>
        <UpdatedNotice />
      </Layout>
    );
  }
  return (
    <Layout>
      <PageErrorBoundary resetKey={location.pathname}>
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route
              path="/"
              element={
                <TenantPage>
                  <OverviewPage />
                </TenantPage>
              }
            />
            <Route path="/login" element={<Navigate to="/" replace />} />
            <Route
              path="/cases"
              element={
                <TenantPage permission="cases:read">
                  <CasesPage />
                </TenantPage>
              }
            />
            <Route
              path="/cases/:caseId"
              element={
                <TenantPage permission="cases:read">
                  <CaseDetailPage />
                </TenantPage>
              }
            />
            <Route
              path="/observations"
              element={
                <TenantPage permission="observations:read">
                  <ObservationsPage />
                </TenantPage>
              }
            />
            <Route
              path="/rules"
              element={
                <TenantPage permission="observations:read">
                  <RulesPage />
                </TenantPage>
              }
            />
            <Route
              path="/devices"
              element={
                <TenantPage permission="devices:read">
                  <DevicesPage />
                </TenantPage>
              }
            />
            <Route
              path="/devices/:deviceId"
              element={
                <TenantPage permission="devices:read">
                  <DeviceDetailPage />
                </TenantPage>
              }
            />
            <Route
              path="/telemetry"
              element={
                <TenantPage permission="telemetry:read">
                  <TelemetryPage />
                </TenantPage>
              }
            />
            <Route
              path="/coverage"
              element={
                <TenantPage permission="observations:read">
                  <CoveragePage />
                </TenantPage>
              }
            />
            <Route path="/settings" element={<Navigate to="/settings/integrations/api" replace />} />
            <Route path="/settings/integrations" element={<Navigate to="/settings/integrations/api" replace />} />
            <Route
              path="/settings/integrations/api"
              element={
                <TenantPage>
                  <ApiConfigurationPage />
                </TenantPage>
              }
            />
            <Route
              path="/settings/collector"
              element={
                <TenantPage>
                  <CollectorPage />
                </TenantPage>
              }
            />
            <Route
              path="/settings/ai"
              element={
                <TenantPage>
                  <AiSummariesPage />
                </TenantPage>
              }
            />
            <Route
              path="/settings/users"
              element={
                <TenantPage permission="users:read">
                  <UsersPage />
                </TenantPage>
              }
            />
            <Route
              path="/settings/retention"
              element={
                <TenantPage permission="retention:read">
                  <RetentionPage />
                </TenantPage>
              }
            />
            <Route path="/settings/account" element={<Navigate to="/settings/security" replace />} />
            <Route path="/settings/security" element={<SecurityPage />} />
            <Route
              path="/settings/sso"
              element={
                <TenantPage permission="sso:read">
                  <SingleSignOnPage />
                </TenantPage>
              }
            />
            <Route path="/account/sso-link" element={<SsoLinkPage />} />
            <Route
              path="/settings/case-work"
              element={
                <TenantPage permission="cases:read">
                  <CaseWorkPage />
                </TenantPage>
              }
            />
            <Route
              path="/settings/webhooks"
              element={
                <TenantPage permission="webhooks:read">
                  <WebhooksPage />
                </TenantPage>
              }
            />
            <Route path="/operator" element={<Navigate to="/operator/tenants" replace />} />
            <Route
              path="/operator/tenants"
              element={
                <OperatorPage>
                  <TenantsPage />
                </OperatorPage>
              }
            />
            <Route
              path="/operator/reviews"
              element={
                <OperatorPage>
                  <ReviewsPage />
                </OperatorPage>
              }
            />
            <Route
              path="/operator/retention"
              element={
                <OperatorPage>
                  <RetentionOverviewPage />
                </OperatorPage>
              }
            />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </PageErrorBoundary>
    </Layout>
  );
}
